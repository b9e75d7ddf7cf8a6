"""``OptimizerDialog``: pick the tensors to train and an optimizer; it writes
``optimizer = torch.optim.SGD([w, b], lr=0.1)``.

Hyper-parameters are checked by constructing the engine's optimizer
(``engine.builder.scaffolds.optimizer_form_errors``), so ``lr = -1`` is refused with PyTorch's
``Invalid learning rate: -1``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QWidget,
)

from engine.builder import scaffolds as sc
from engine.builder.names import suggest_name

from .form_widgets import FormDialog, mono_font

ROLE_NAME = Qt.ItemDataRole.UserRole


def _in_module(name: str, module: str) -> bool:
    return name.startswith((module + ".", module + "["))


def default_text(param) -> str:
    """A hyper-parameter's default as the placeholder shows it."""
    if param.kind == "pair":
        return ", ".join(map(str, param.default))
    return str(param.default)


class OptimizerDialog(FormDialog):
    """The "Add Optimizer…" form. ``form()`` -> OptimizerForm; ``code_edit()`` -> CodeEdit."""

    form_errors = staticmethod(sc.optimizer_form_errors)
    form_edit = staticmethod(sc.add_optimizer)

    def __init__(self, workspace, source: str, parent: QWidget | None = None) -> None:
        super().__init__("Add Optimizer",
                         "An optimizer updates the tensors you tick, from their .grad, "
                         "each time optimizer.step() runs.", workspace, source, parent)
        self.setObjectName("OptimizerDialog")
        f = self.fields
        self.name_edit = f.add_field("name", "Name",
                                     QLineEdit(suggest_name("optimizer", workspace)))
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(list(sc.OPTIMIZER_KINDS))
        f.add_field("kind", "Kind", self.kind_combo)
        self.params_list = QListWidget()
        self.params_list.setObjectName("optimizer_params")
        self.params_list.setFont(mono_font())
        self.params_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self._fill_params()
        f.add_field("params", "Parameters", self.params_list,
                    tooltip="Leaf tensors that require grad, and modules (all their parameters)")
        self.hyper_editors: dict[str, QWidget] = {}  # the kind's options: rows of the form

        self.name_edit.textChanged.connect(self.revalidate)
        self.kind_combo.currentTextChanged.connect(self._kind_changed)
        self.params_list.itemChanged.connect(self.revalidate)
        self._kind_changed()

    def _fill_params(self) -> None:
        ws = self.workspace
        modules = list(ws.modules)
        rows = []
        for name, kind in ws.modules.items():
            count = sum(1 for t in ws.tensors if _in_module(t, name))
            rows.append((name, f"{name}  {kind} · {count} parameter{'s' * (count != 1)}", True))
        for name, info in ws.tensors.items():
            if info.is_leaf and info.requires_grad:
                owned = any(_in_module(name, m) for m in modules)
                rows.append((name, f"{name}  {info.label}", not owned))
        for name, text, checked in rows:
            item = QListWidgetItem(text)
            item.setData(ROLE_NAME, name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.params_list.addItem(item)
        rows_shown = min(max(len(rows), 2), 8)
        self.params_list.setFixedHeight(rows_shown * self.params_list.sizeHintForRow(0) + 8
                                        if rows else 48)

    def _kind_changed(self, *_args) -> None:
        for name in self.hyper_editors:
            self.fields.remove_field(name)
        self.hyper_editors = {}
        for param in sc.OPTIMIZER_KINDS[self.kind()]:
            if param.kind == "bool":
                editor = QCheckBox()
                editor.setChecked(bool(param.default))
                editor.toggled.connect(self.revalidate)
            else:
                editor = QLineEdit()
                editor.setPlaceholderText(default_text(param))
                editor.textChanged.connect(self.revalidate)
            editor.setObjectName(f"hyper_{param.name}")
            self.fields.add_field(param.name, param.name, editor, tooltip=param.help)
            self.hyper_editors[param.name] = editor
        self.revalidate()

    def kind(self) -> str:
        return self.kind_combo.currentText()

    def checked_params(self) -> tuple[str, ...]:
        out = []
        for i in range(self.params_list.count()):
            item = self.params_list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(ROLE_NAME))
        return tuple(out)

    def set_checked(self, names) -> None:
        wanted = set(names)
        for i in range(self.params_list.count()):
            item = self.params_list.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.data(ROLE_NAME) in wanted
                               else Qt.CheckState.Unchecked)

    def form(self):
        hyper = {}
        for name, editor in self.hyper_editors.items():
            if isinstance(editor, QCheckBox):
                hyper[name] = str(editor.isChecked())
            elif editor.text().strip():
                hyper[name] = editor.text()
        return sc.OptimizerForm(name=self.name_edit.text().strip(), kind=self.kind(),
                                params=self.checked_params(), hyper=hyper)

    def preview_text(self) -> str:
        return sc.optimizer_statement(self.form(), self.source, self.workspace)
