"""``NewTensorDialog``: make a tensor by filling a form; it writes ``x = torch.tensor(...)``.

Checks come from ``engine.builder.tensor_form.form_errors``: a ragged list, a taken name or
``requires_grad`` on an integer tensor is refused under its field with PyTorch's own words.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from engine.builder import tensor_form as tf
from engine.builder.names import name_problem, suggest_name

from .form_widgets import FormDialog, choice_combo, mono_font

MODES = tf.MODES
MODE_LABELS = {
    "values": "values: torch.tensor([...])",
    "zeros": "zeros: torch.zeros(shape)",
    "ones": "ones: torch.ones(shape)",
    "rand": "rand: uniform in [0, 1)",
    "randn": "randn: standard normal",
    "arange": "arange: 0, 1, 2, …",
}
DTYPES = tf.DTYPES
FIRST_NAMES = ("x", "w", "b", "y", "z", "a", "v", "u")


def first_free_name(workspace) -> str:
    for name in FIRST_NAMES:
        if name_problem(name, workspace) is None:
            return name
    return suggest_name("x", workspace)


class NewTensorDialog(FormDialog):
    """The "New Tensor…" form. ``form()`` -> TensorForm; ``code_edit()`` -> CodeEdit."""

    form_errors = staticmethod(tf.form_errors)
    form_statement = staticmethod(tf.tensor_statement)
    form_edit = staticmethod(tf.new_tensor)

    def __init__(self, workspace, source: str, parent: QWidget | None = None) -> None:
        super().__init__("New Tensor",
                         "A new tensor at the end of the script. Leaves that require grad "
                         "are what backward() fills .grad for.", workspace, source, parent)
        self.setObjectName("NewTensorDialog")
        f = self.fields
        self.name_edit = f.add_field("name", "Name", QLineEdit(first_free_name(workspace)))
        self.mode_combo = choice_combo(MODES, MODE_LABELS)
        f.add_field("mode", "Make", self.mode_combo)
        self.values_edit = QLineEdit("[1.0, 2.0, 3.0]")
        self.values_edit.setFont(mono_font())
        self.values_edit.setPlaceholderText("[1.0, 2.0, 3.0]  or  [[1, 2], [3, 4]]")
        f.add_field("values", "Values", self.values_edit,
                    tooltip="A number or a nested list, as you would write it for torch.tensor")
        self.shape_edit = QLineEdit("3")
        self.shape_edit.setFont(mono_font())
        self.shape_edit.setPlaceholderText("2, 3")
        f.add_field("shape", "Shape", self.shape_edit,
                    tooltip="Sizes separated by commas "
                            "(arange: 6 counts 0…5; 2, 3 makes a 2x3 grid)")
        self.dtype_combo = QComboBox()
        self.dtype_combo.addItems(DTYPES)
        self.dtype_combo.setItemText(0, "auto")
        f.add_field("dtype", "dtype", self.dtype_combo,
                    tooltip="auto: as torch.tensor infers it (float32 for decimals, int64 for "
                            "whole numbers)")
        self.grad_check = QCheckBox("requires_grad (a leaf backward() computes .grad for)")
        self.grad_check.setChecked(True)
        f.add_field("requires_grad", "", self.grad_check)

        self.name_edit.textChanged.connect(self.revalidate)
        self.mode_combo.currentIndexChanged.connect(self._mode_changed)
        self.values_edit.textChanged.connect(self.revalidate)
        self.shape_edit.textChanged.connect(self.revalidate)
        self.dtype_combo.currentTextChanged.connect(self.revalidate)
        self.grad_check.toggled.connect(self.revalidate)
        self._mode_changed()

    def mode(self) -> str:
        return self.mode_combo.currentData()

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(MODES.index(mode))

    def _mode_changed(self, *_args) -> None:
        values = self.mode() == "values"
        self.fields.set_field_visible("values", values)
        self.fields.set_field_visible("shape", not values)
        self.revalidate()

    def form(self):
        return tf.TensorForm(
            name=self.name_edit.text().strip(),
            mode=self.mode(),
            values=self.values_edit.text(),
            shape=self.shape_edit.text(),
            dtype=self.dtype_combo.currentText(),
            requires_grad=self.grad_check.isChecked(),
        )
