"""``NewLayerDialog``: make an ``nn.Linear`` or an MLP by filling a form, as tutorials write them.

It writes ``model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), ...)`` or
``fc1 = torch.nn.Linear(2, 8)``. Checks come from ``engine.builder.modules.layer_form_errors``:
a taken name or sizes that make no layer are refused under their field.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from engine.builder import modules as lm
from engine.builder.names import name_problem, suggest_name

from .form_widgets import FormDialog, choice_combo, mono_font

FIRST_NAMES = {"mlp": ("model", "net", "mlp"), "linear": ("fc1", "fc", "layer", "linear")}
SIZE_EXAMPLES = {"mlp": "2, 8, 1", "linear": "2, 8"}


def first_free_name(workspace, kind: str = "mlp") -> str:
    names = FIRST_NAMES.get(kind, FIRST_NAMES["mlp"])
    for name in names:
        if name_problem(name, workspace) is None:
            return name
    return suggest_name(names[0], workspace)


class NewLayerDialog(FormDialog):
    """The "New Layer…" form. ``form()`` -> LayerForm; ``code_edit()`` -> CodeEdit."""

    form_errors = staticmethod(lm.layer_form_errors)
    form_statement = staticmethod(lm.layer_statement)
    form_edit = staticmethod(lm.new_layer)

    def __init__(self, workspace, source: str, parent: QWidget | None = None) -> None:
        super().__init__("New Layer",
                         "A module at the end of the script: a Linear layer, or an MLP of "
                         "Linear layers with an activation between them. Call it on a tensor "
                         "from the palette's Modules group.", workspace, source, parent)
        self.setObjectName("NewLayerDialog")
        f = self.fields
        self.name_edit = f.add_field("name", "Name", QLineEdit(first_free_name(workspace)))
        self._name_suggested = self.name_edit.text()
        self.kind_combo = choice_combo(lm.KINDS, lm.KIND_LABELS)
        f.add_field("kind", "Make", self.kind_combo)
        self.sizes_edit = QLineEdit(SIZE_EXAMPLES["mlp"])
        self.sizes_edit.setFont(mono_font())
        self.sizes_edit.setPlaceholderText("2, 8, 1")
        f.add_field("sizes", "Sizes", self.sizes_edit,
                    tooltip="Features in, hidden layer sizes, features out: 2, 8, 1 is "
                            "Linear(2, 8) then Linear(8, 1)")
        self.activation_combo = QComboBox()
        self.activation_combo.addItems(lm.ACTIVATIONS)
        f.add_field("activation", "Activation", self.activation_combo,
                    tooltip="Put between the Linear layers (none: no activation)")
        self.bias_check = QCheckBox("bias (each Linear layer adds a learned bias)")
        self.bias_check.setChecked(True)
        f.add_field("bias", "", self.bias_check)

        self.name_edit.textChanged.connect(self.revalidate)
        self.kind_combo.currentIndexChanged.connect(self._kind_changed)
        self.sizes_edit.textChanged.connect(self.revalidate)
        self.activation_combo.currentTextChanged.connect(self.revalidate)
        self.bias_check.toggled.connect(self.revalidate)
        # An MLP's line is long: the preview wraps it rather than cutting off the last layer
        # (the editor gets it on one line, as written).
        self.preview.setWordWrap(True)
        self._kind = "mlp"
        self._kind_changed()

    def kind(self) -> str:
        return self.kind_combo.currentData()

    def set_kind(self, kind: str) -> None:
        self.kind_combo.setCurrentIndex(lm.KINDS.index(kind))

    def _kind_changed(self, *_args) -> None:
        kind = self.kind()
        if kind != self._kind:
            # the suggestions follow the kind until the user types their own
            if self.sizes_edit.text().strip() == SIZE_EXAMPLES[self._kind]:
                self.sizes_edit.setText(SIZE_EXAMPLES[kind])
            if self.name_edit.text().strip() == self._name_suggested:
                self._name_suggested = first_free_name(self.workspace, kind)
                self.name_edit.setText(self._name_suggested)
            self._kind = kind
        self.fields.set_field_visible("activation", kind == "mlp")
        self.revalidate()

    def form(self):
        return lm.LayerForm(
            name=self.name_edit.text().strip(),
            kind=self.kind(),
            sizes=self.sizes_edit.text(),
            activation=self.activation_combo.currentText(),
            bias=self.bias_check.isChecked(),
        )
