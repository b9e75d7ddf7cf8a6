"""``BuildPanel``: the "Build" dock. Point at tensors, pick an op, and it writes the PyTorch line.

The panel never changes the script itself: it emits ``edit_requested(CodeEdit)`` and the window
applies the edit to the editor and re-runs. What is valid comes from ``engine.builder.check``
(a dry run of the same call on zero-filled tensors), so a greyed op carries PyTorch's own message.

Signals:
- ``edit_requested(object)``: an ``engine.builder.edits.CodeEdit`` to apply.
- ``selection_changed(list)``: tensor names picked in the panel's list, in the order picked.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.builder import catalog
from engine.builder.check import Verdict, apply_op, check_op, op_expression, parse_param
from engine.builder.edits import BuildError
from engine.builder.modules import apply_module_call, module_call_verdict
from engine.builder.names import name_problem, suggest_name
from engine.builder.workspace import Workspace

from .form_widgets import ErrorLabel, FieldForm, PreviewLabel, mono_font

ROLE_OP = Qt.ItemDataRole.UserRole
ROLE_NAME = Qt.ItemDataRole.UserRole

MODULES_GROUP = "Modules"  # the palette's last group: a call of each module of the script
MODULE_OP_PREFIX = "module:"

# A binary op's second operand when one tensor is picked: what a learner expects to read.
DEFAULT_NUMBER = {"add": "1", "sub": "1", "div": "2", "pow": "2", "rsub": "1"}


def tensor_row_text(info) -> str:
    """``x  float32[3]  leaf · requires_grad`` / ``y  float32[3]  MulBackward0``."""
    if info.grad_fn:
        origin = info.grad_fn
    else:
        origin = "leaf · requires_grad" if info.requires_grad else "leaf"
    extra = " · retains_grad" if info.retains_grad and not info.is_leaf else ""
    return f"{info.name}  {info.label}  {origin}{extra}"


def verdict_text(verdict: Verdict) -> str:
    """``→ float32[3] · MulBackward0`` for a valid op; its reason otherwise."""
    if not verdict.ok:
        return verdict.reason or "not valid here"
    if verdict.shape is None and verdict.reason:  # valid, but not dry-run ("not checked: ...")
        return verdict.reason
    shape = tuple(verdict.shape or ())
    label = f"{verdict.dtype}[{', '.join(map(str, shape))}]" if shape else f"{verdict.dtype} scalar"
    node = f" · {verdict.grad_fn}" if verdict.grad_fn else ""
    return f"→ {label}{node}"


def module_op(name: str, kind: str) -> catalog.OpSpec:
    """The palette's row for calling module ``name`` (``model(a)``): one operand, A."""
    return catalog.OpSpec(
        id=f"{MODULE_OP_PREFIX}{name}", title=f"{name}(a)", group=MODULES_GROUP, arity=1,
        scalar_ok=False, template=f"{name}({{a}})", stem="out",
        keywords=(name, kind, "module", "layer", "nn", "forward", "call"),
        doc=f"call the script's {kind} {name} on A (its forward pass)")


def is_module_op(op) -> bool:
    return op is not None and op.id.startswith(MODULE_OP_PREFIX)


def module_name_of(op) -> str:
    return op.id[len(MODULE_OP_PREFIX):]


def parse_number(text: str):
    """``"2"`` -> 2, ``"0.5"`` -> 0.5, ``"1e-3"`` -> 0.001; None when not a number."""
    text = text.strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value


class BuildPanel(QWidget):
    """The op palette; see the module's docstring."""

    edit_requested = Signal(object)
    selection_changed = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("BuildPanel")
        self.workspace = Workspace.empty()
        self.source = ""
        self.picked: list[str] = []  # the list's selection, in the order the user picked
        self.op = None  # the OpSpec selected in the tree
        self.verdicts: dict[str, Verdict] = {}
        self._name_typed = False  # the user typed a result name: keep it across op changes
        self._b_typed = False  # the user chose B: keep it across op changes
        self._syncing = False
        self.param_editors: dict[str, QWidget] = {}
        self._reason: str | None = None
        self._cache: dict = {}  # (op id, operands, params) -> Verdict, for this workspace
        self._module_ops: dict[str, catalog.OpSpec] = {}  # op id -> the call of a module
        self._module_rows: tuple = ()  # ((name, class name), ...) the Modules group shows
        self.dialog = None  # the open form, if any
        # The window may open the forms itself (its menu actions do): set to a callable taking
        # "tensor" | "layer" | "optimizer" | "loop" and the panel's buttons call it instead.
        self.form_opener = None
        self.empty_reason = self.NO_TENSORS

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)

        self.banner = QLabel(self)
        self.banner.setObjectName("noteBanner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        layout.addWidget(self.banner)

        self.body = QWidget(self)
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(4)
        # A short dock scrolls rather than squeezing the parameter rows to nothing.
        scroll = QScrollArea(self)
        scroll.setObjectName("build_scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.body)
        layout.addWidget(scroll, 1)

        buttons = QHBoxLayout()
        buttons.setSpacing(4)
        self.new_tensor_button = QPushButton("New Tensor…")
        self.new_tensor_button.setObjectName("build_new_tensor")
        self.new_layer_button = QPushButton("New Layer…")
        self.new_layer_button.setObjectName("build_new_layer")
        self.new_layer_button.setToolTip("An nn.Linear layer or an MLP (nn.Sequential); call it "
                                         "from the Modules group")
        self.optimizer_button = QPushButton("Add Optimizer…")
        self.optimizer_button.setObjectName("build_add_optimizer")
        self.loop_button = QPushButton("Training Loop…")
        self.loop_button.setObjectName("build_training_loop")
        for button in (self.new_tensor_button, self.new_layer_button, self.optimizer_button,
                       self.loop_button):
            button.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.new_tensor_button.clicked.connect(lambda: self._open_dialog("tensor"))
        self.new_layer_button.clicked.connect(lambda: self._open_dialog("layer"))
        self.optimizer_button.clicked.connect(lambda: self._open_dialog("optimizer"))
        self.loop_button.clicked.connect(lambda: self._open_dialog("loop"))
        body.addLayout(buttons)

        split = QSplitter(Qt.Orientation.Vertical, self.body)
        split.setChildrenCollapsible(False)
        body.addWidget(split, 1)

        # -- tensors
        tensors_host, tl = _bare(QVBoxLayout, 2)
        tl.addWidget(QLabel("<b>Tensors</b> <span style='font-weight:normal'>"
                            "(Ctrl+click to pick two)</span>"))
        self.tensor_list = QListWidget()
        self.tensor_list.setObjectName("build_tensors")
        self.tensor_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tensor_list.setFont(mono_font())
        self.tensor_list.setMinimumHeight(48)
        self.tensor_list.itemSelectionChanged.connect(self._list_selection_changed)
        tl.addWidget(self.tensor_list)
        split.addWidget(tensors_host)

        # -- ops
        ops_host, ol = _bare(QVBoxLayout, 2)
        self.search = QLineEdit()
        self.search.setObjectName("build_search")
        self.search.setPlaceholderText("Search ops (mul, matmul, loss, relu…)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter_ops)
        self.search.returnPressed.connect(self.pick_first_match)
        ol.addWidget(self.search)
        self.op_tree = QTreeWidget()
        self.op_tree.setObjectName("build_ops")
        self.op_tree.setColumnCount(2)
        self.op_tree.setHeaderLabels(["op", "result"])
        self.op_tree.setRootIsDecorated(True)
        self.op_tree.setUniformRowHeights(True)
        self.op_tree.setMinimumHeight(100)
        self.op_tree.currentItemChanged.connect(self._op_changed)
        ol.addWidget(self.op_tree, 1)
        self.about = QLabel()  # the selected op: what it does, and its result
        self.about.setObjectName("build_about")
        self.about.setWordWrap(True)
        self.about.setTextFormat(Qt.TextFormat.PlainText)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.about.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        ol.addWidget(self.about)
        self.detail = ErrorLabel()  # why the selected op is refused: PyTorch's message
        ol.addWidget(self.detail)
        split.addWidget(ops_host)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)

        # -- operands, parameters, name
        self.form = FieldForm(self.body)
        operands, orow = _bare(QHBoxLayout, 4)
        self.a_combo = _operand_combo("build_operand_a")
        self.b_label = QLabel("B")
        self.b_combo = _operand_combo("build_operand_b")
        self.b_combo.setEditable(True)
        self.b_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.b_combo.lineEdit().setPlaceholderText("tensor or number")
        self.swap_button = QToolButton()
        self.swap_button.setObjectName("build_swap")
        self.swap_button.setText("⇄")
        self.swap_button.setToolTip("Swap A and B")
        self.swap_button.clicked.connect(self.swap_operands)
        orow.addWidget(QLabel("A"))
        orow.addWidget(self.a_combo, 1)
        orow.addWidget(self.swap_button)
        orow.addWidget(self.b_label)
        orow.addWidget(self.b_combo, 1)
        self.form.add_field("operands", "Operands", operands)
        self.a_combo.currentTextChanged.connect(self._a_changed)
        self.b_combo.currentTextChanged.connect(self._b_changed)
        self.b_combo.lineEdit().textEdited.connect(self._b_edited)
        self.b_combo.activated.connect(lambda _i: self._b_edited(self.b_combo.currentText()))

        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("build_name")
        self.name_edit.setPlaceholderText("result name")
        self.name_edit.textEdited.connect(self._name_edited)
        self.name_edit.returnPressed.connect(self.apply)
        self.form.add_field("name", "Result", self.name_edit)
        body.addWidget(self.form)

        bottom = QHBoxLayout()
        self.preview = PreviewLabel()
        self.preview.setObjectName("build_preview")
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("build_apply")
        self.apply_button.setDefault(True)
        self.apply_button.clicked.connect(self.apply)
        bottom.addWidget(self.preview, 1)
        bottom.addWidget(self.apply_button)
        body.addLayout(bottom)
        self.apply_error = ErrorLabel()
        body.addWidget(self.apply_error)

        self._build_tree()
        self._refresh_operands()
        self._update()

    # ------------------------------------------------------------------------------ public
    def set_workspace(self, workspace, source: str) -> None:
        """The script's names after a run (the window calls this after every command)."""
        workspace = workspace if workspace is not None else Workspace.empty()
        if workspace == self.workspace and (source or "") == self.source:
            return  # a step that bound nothing new: every verdict stands (re-checking ~70 ops
            # against the names costs milliseconds a step)
        self.workspace = workspace
        self.source = source or ""
        self._cache = {}
        self._build_tree_spellings()
        self._sync_module_items()
        self.picked = [n for n in self.picked if n in self.workspace.tensors]
        self._fill_list()
        self._refresh_operands()
        if self._name_typed and name_problem(self.name_edit.text().strip(), self.workspace):
            self._name_typed = False  # e.g. the name just applied: the next result needs another
        self._update()

    def set_selection(self, names) -> None:
        """Select ``names`` (the graph's selection) without echoing ``selection_changed``."""
        names = [n for n in names if n in self.workspace.tensors]
        if names == self.picked:
            return
        self.picked = list(names)
        self._syncing = True
        try:
            self._select_in_list(self.picked)
        finally:
            self._syncing = False
        self._b_typed = False
        self._refresh_operands()
        self._update()

    NO_TENSORS = "no tensors yet: make one with New Tensor…"

    def set_empty_hint(self, hint: str | None) -> None:
        """What to say while the workspace has no tensors (None: the plain "make one")."""
        hint = hint or self.NO_TENSORS
        if hint != self.empty_reason:
            self.empty_reason = hint
            self._update()

    def set_enabled_reason(self, reason: str | None) -> None:
        """Disable everything while ``reason`` holds (a script runs, a recorded file...)."""
        self._reason = reason or None
        self.body.setEnabled(self._reason is None)
        self.banner.setText(self._reason or "")
        self.banner.setVisible(self._reason is not None)

    @property
    def operands(self) -> list:
        """The operands for the selected op (tensor names and numbers)."""
        return self._operands_for(self.op)

    def params(self) -> dict:
        """The selected op's parameter values; raises BuildError naming the bad one."""
        values = {}
        if self.op is None:
            return values
        for param in self.op.params:
            editor = self.param_editors.get(param.name)
            if isinstance(editor, QCheckBox):
                if editor.isChecked() != bool(param.default):
                    values[param.name] = editor.isChecked()
            elif isinstance(editor, QComboBox):
                text = editor.currentText()
                if text != str(param.default):
                    values[param.name] = text
            elif isinstance(editor, QLineEdit):
                text = editor.text().strip()
                if text:
                    parse_param(param, text)  # raises BuildError(param.name, reason)
                    values[param.name] = text
        return values

    def line(self) -> str:
        """The line Apply would write (the preview's text), or "" when it cannot."""
        return self.preview.text() if self._line_ok else ""

    def select_op(self, op_id: str) -> None:
        item = self._op_items.get(op_id)
        if item is not None:
            self.op_tree.setCurrentItem(item)
            # Centred: the op's parameter rows appear next and shrink the tree under it.
            self.op_tree.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtCenter)

    def op_item(self, op_id: str) -> QTreeWidgetItem:
        return self._op_items[op_id]

    def apply(self) -> None:
        """Write the selected op's line: emits ``edit_requested`` unless something is refused."""
        if self.op is None or self._reason is not None:
            return
        try:
            params = self.params()
            operands = self._checked_operands()
            name = self.name_edit.text().strip()
            if is_module_op(self.op):
                edit = apply_module_call(self.source, self.workspace, module_name_of(self.op),
                                         operands[0] if operands else "", name)
            else:
                edit = apply_op(self.source, self.workspace, self.op, operands, params, name)
        except BuildError as exc:
            self._show_build_error(exc)
            return
        self.form.set_errors({})
        self.apply_error.say(None)
        self.edit_requested.emit(edit)

    def swap_operands(self) -> None:
        a, b = self.a_combo.currentText(), self.b_combo.currentText().strip()
        if b not in self.workspace.tensors:
            return
        self._b_typed = True
        self._syncing = True
        try:
            self.a_combo.setCurrentText(b)
            self.b_combo.setCurrentText(a)
        finally:
            self._syncing = False
        self._update()

    # ------------------------------------------------------------------------------ building
    def _add_group_item(self, title: str) -> QTreeWidgetItem:
        """A bold, unselectable heading row of the op tree."""
        item = QTreeWidgetItem([title, ""])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        self.op_tree.addTopLevelItem(item)
        item.setFirstColumnSpanned(True)
        return item

    def _build_tree(self) -> None:
        self.op_tree.clear()
        self._op_items: dict[str, QTreeWidgetItem] = {}
        self._group_items: dict[str, QTreeWidgetItem] = {}
        for group in catalog.GROUPS:
            self._group_items[group] = self._add_group_item(group)
        for op in catalog.CATALOG:
            parent = self._group_items.get(op.group)
            if parent is None:
                parent = QTreeWidgetItem([op.group, ""])
                self.op_tree.addTopLevelItem(parent)
                self._group_items[op.group] = parent
            item = QTreeWidgetItem(parent, [self._spelling(op), ""])
            item.setData(0, ROLE_OP, op.id)
            item.setFont(0, mono_font())
            item.setToolTip(0, f"{op.title}: {op.doc}" if getattr(op, "doc", "") else op.title)
            self._op_items[op.id] = item
        modules = self._add_group_item(MODULES_GROUP)  # filled by _sync_module_items
        modules.setToolTip(0, "Call a module of the script on A: out = model(a)")
        modules.setHidden(True)
        self._group_items[MODULES_GROUP] = modules
        self.op_tree.expandAll()
        self.op_tree.header().setStretchLastSection(True)

    def _build_tree_spellings(self) -> None:
        """Re-spell the ops in the script's own names (``T.matmul`` for ``import torch as T``)."""
        for op in catalog.CATALOG:
            item = self._op_items.get(op.id)
            if item is not None:
                item.setText(0, self._spelling(op))

    def _sync_module_items(self) -> None:
        """The Modules group lists the workspace's modules (rebuilt only when they change)."""
        rows = tuple((name, kind) for name, kind in self.workspace.modules.items()
                     if isinstance(name, str) and name.isidentifier())
        if rows == self._module_rows:
            return
        self._module_rows = rows
        group = self._group_items[MODULES_GROUP]
        current = self.op.id if self.op is not None else None
        blocker = self.op_tree.blockSignals(True)
        try:
            for op_id in self._module_ops:
                self._op_items.pop(op_id, None)
            group.takeChildren()
            self._module_ops = {}
            for name, kind in rows:
                op = module_op(name, kind)
                item = QTreeWidgetItem(group, [op.title, ""])
                item.setData(0, ROLE_OP, op.id)
                item.setFont(0, mono_font())
                item.setToolTip(0, f"{op.title}: {op.doc}")
                self._op_items[op.id] = item
                self._module_ops[op.id] = op
            group.setExpanded(True)
            if is_module_op(self.op):
                if current in self._module_ops:
                    self.op = self._module_ops[current]
                    self.op_tree.setCurrentItem(self._op_items[current])
                else:
                    self.op = None
                    self.op_tree.setCurrentItem(None)
        finally:
            self.op_tree.blockSignals(blocker)
        self._filter_ops(self.search.text())

    def _all_ops(self) -> list:
        """The catalog's ops, then the calls of the script's modules: display order."""
        return [*catalog.CATALOG, *self._module_ops.values()]

    def _spelling(self, op) -> str:
        """How the op reads in code, on placeholders: ``a * b``, ``F.mse_loss(a, b)``."""
        operands = ["a", "b", "c"][: max(op.arity, 1)]
        try:
            return op_expression(op, operands, {}, self.source)[0]
        except Exception:
            return op.title

    def _fill_list(self) -> None:
        self._syncing = True
        try:
            self.tensor_list.clear()
            for name, info in self.workspace.tensors.items():
                item = QListWidgetItem(tensor_row_text(info))
                item.setData(ROLE_NAME, name)
                item.setToolTip(tensor_row_text(info))
                self.tensor_list.addItem(item)
            self._select_in_list(self.picked)
        finally:
            self._syncing = False

    def _select_in_list(self, names) -> None:
        wanted = set(names)
        current = None
        for i in range(self.tensor_list.count()):
            item = self.tensor_list.item(i)
            selected = item.data(ROLE_NAME) in wanted
            item.setSelected(selected)
            if selected and current is None:
                current = item
        if current is not None:
            self.tensor_list.scrollToItem(current)

    # ------------------------------------------------------------------------------ reacting
    def _list_selection_changed(self) -> None:
        if self._syncing:
            return
        now = [it.data(ROLE_NAME) for it in self.tensor_list.selectedItems()]
        kept = [n for n in self.picked if n in now]
        added = [it.data(ROLE_NAME) for i in range(self.tensor_list.count())
                 if (it := self.tensor_list.item(i)).isSelected()
                 and it.data(ROLE_NAME) not in kept]
        self.picked = kept + added
        self._b_typed = False
        self._refresh_operands()
        self._update()
        self.selection_changed.emit(list(self.picked))

    def _refresh_operands(self) -> None:
        """Fill A and B's lists from the workspace and set them from the picked tensors."""
        names = list(self.workspace.tensors)
        self._syncing = True
        try:
            a_now = self.a_combo.currentText()
            b_now = self.b_combo.currentText()
            self.a_combo.clear()
            self.a_combo.addItems(names)
            self.b_combo.clear()
            self.b_combo.addItems(names)
            if self.picked:
                a = self.picked[0]
            elif a_now in self.workspace.tensors:
                a = a_now
            else:
                a = names[0] if names else ""
            self.a_combo.setCurrentText(a)
            if len(self.picked) >= 2:
                self.b_combo.setCurrentText(self.picked[1])
                self._b_typed = True
            elif self._b_typed and (b_now in self.workspace.tensors
                                    or parse_number(b_now) is not None):
                self.b_combo.setCurrentText(b_now)
            else:
                self._b_typed = False
                self.b_combo.setCurrentText(self._default_b(self.op))
        finally:
            self._syncing = False

    def _default_b(self, op) -> str:
        a = self.a_combo.currentText()
        if op is None or op.arity < 2:
            return a
        number = DEFAULT_NUMBER.get(op.id)
        if number is not None and op.scalar_ok:
            return number
        if a in self.workspace.tensors:
            verdict = self._check(op, [a, a])
            if verdict.ok or not op.scalar_ok:
                return a
        return "1" if op.scalar_ok else a

    def _default_b_unless_typed(self) -> None:
        """B follows A and the op (x * x, x + 1) until the user types a B of their own."""
        if self._b_typed:
            return
        self._syncing = True
        try:
            self.b_combo.setCurrentText(self._default_b(self.op))
        finally:
            self._syncing = False

    def _a_changed(self, _text: str) -> None:
        if self._syncing:
            return
        self._default_b_unless_typed()
        self._update()

    def _b_changed(self, _text: str) -> None:
        if not self._syncing:
            self._update()

    def _b_edited(self, _text: str) -> None:
        if not self._syncing:
            self._b_typed = True

    def _name_edited(self, text: str) -> None:
        self._name_typed = bool(text.strip())
        self._update_line()

    def _op_changed(self, current, _previous=None) -> None:
        op_id = current.data(0, ROLE_OP) if current is not None else None
        self.op = (catalog.BY_ID.get(op_id) or self._module_ops.get(op_id)) if op_id else None
        self._build_params()
        self._default_b_unless_typed()
        self._update_line()

    def _build_params(self) -> None:
        """The selected op's parameters as rows of the form, between the operands and the name."""
        for name in self.param_editors:
            self.form.remove_field(name)
        self.param_editors = {}
        for param in (self.op.params if self.op is not None else ()):
            label = getattr(param, "label", "") or param.name
            if param.kind == "bool":
                editor = QCheckBox()
                editor.setChecked(bool(param.default))
                editor.toggled.connect(lambda _c: self._update_line())
            elif param.kind == "choice":
                editor = QComboBox()
                editor.addItems([str(c) for c in (param.choices or ())])
                editor.setCurrentText(str(param.default))
                editor.currentTextChanged.connect(lambda _t: self._update_line())
            else:
                editor = QLineEdit()
                default = param.default
                editor.setPlaceholderText("" if default is None else
                                          ", ".join(map(str, default))
                                          if isinstance(default, (tuple, list)) else str(default))
                if default is None:
                    editor.setPlaceholderText("optional" if param.optional else
                                              "e.g. 1, 0" if param.kind in ("dims", "shape")
                                              else "required")
                editor.textChanged.connect(lambda _t: self._update_line())
                editor.returnPressed.connect(self.apply)
            editor.setObjectName(f"build_param_{param.name}")
            self.form.add_field(param.name, label, editor,
                                tooltip=getattr(param, "help", "") or None, before="name")
            self.param_editors[param.name] = editor

    # ------------------------------------------------------------------------------ checking
    def _operand_value(self, text: str):
        text = text.strip()
        if text in self.workspace.tensors:
            return text
        number = parse_number(text)
        return number if number is not None else text

    def _operands_for(self, op) -> list:
        a = self.a_combo.currentText()
        if op is None or op.arity < 2:
            return [a] if a else []
        b = self.b_combo.currentText() if self._b_typed or self.op is op else self._default_b(op)
        return [a, self._operand_value(b)]

    def _checked_operands(self) -> list:
        operands = self._operands_for(self.op)
        for value in operands:
            if isinstance(value, str) and value not in self.workspace.tensors:
                what = f"'{value}'" if value else "nothing"
                raise BuildError("operands",
                                 f"{what} is neither a tensor in the script nor a number")
        return operands

    def _check(self, op, operands, params=None) -> Verdict:
        key = (op.id, tuple(operands), tuple(sorted((params or {}).items())))
        try:
            hit = self._cache.get(key)
        except TypeError:  # an unhashable parameter value
            key, hit = None, None
        if hit is None:
            hit = self._dry_run(op, operands, params)
            if key is not None:
                self._cache[key] = hit
        return hit

    def _dry_run(self, op, operands, params) -> Verdict:
        try:
            if is_module_op(op):
                operand = operands[0] if len(operands) == 1 else ""
                return module_call_verdict(module_name_of(op), operand, self.workspace)
            return check_op(op, operands, params or {}, self.workspace)
        except BuildError as exc:
            return Verdict(False, exc.message, None, None, None, None)
        except Exception as exc:
            return Verdict(False, f"{type(exc).__name__}: {exc}", None, None, None, None)

    def _update(self) -> None:
        """Re-check every op for the current operands, then the selected one's line."""
        self.b_label.setVisible(self.op is None or self.op.arity >= 2)
        self.b_combo.setVisible(self.op is None or self.op.arity >= 2)
        self.swap_button.setVisible(self.op is None or self.op.arity >= 2)
        grey = QBrush(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
        has_tensors = bool(self.workspace.tensors)
        self.verdicts = {}
        for op in self._all_ops():
            item = self._op_items.get(op.id)
            if item is None:
                continue
            if not has_tensors:
                verdict = Verdict(False, self.empty_reason, None, None, None, None)
            else:
                try:
                    operands = self._operands_for(op)
                    bad = [v for v in operands
                           if isinstance(v, str) and v not in self.workspace.tensors]
                    if bad:
                        raise BuildError("operands", f"'{bad[0]}' is neither a tensor nor a number")
                    params = self.params() if op is self.op else {}
                    verdict = self._check(op, operands, params)
                except BuildError as exc:
                    verdict = Verdict(False, exc.message, None, None, None, None)
            self.verdicts[op.id] = verdict
            text = verdict_text(verdict)
            item.setText(1, text)
            item.setToolTip(1, text)
            for column in (0, 1):
                if verdict.ok:
                    item.setData(column, Qt.ItemDataRole.ForegroundRole, None)  # the palette's
                else:
                    item.setForeground(column, grey)
            if not verdict.ok:
                item.setToolTip(0, verdict.reason or "")
            else:
                item.setToolTip(0, f"{op.title}: {op.doc}" if getattr(op, "doc", "") else op.title)
        self._size_columns()
        self._update_line()

    def _size_columns(self) -> None:
        """The spelling column as wide as its text, but never more than half the tree: the
        result (or the reason) needs the room; the full texts are in the tooltips."""
        wanted = self.op_tree.sizeHintForColumn(0) + 12
        self.op_tree.setColumnWidth(0, max(120, min(wanted, self.op_tree.viewport().width() // 2)))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange and hasattr(self, "_op_items"):
            self._update()  # the greys of refused ops follow the theme

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._size_columns()

    _line_ok = False

    def _update_line(self) -> None:
        """The selected op: its verdict in the detail label, its line in the preview."""
        self._line_ok = False
        self.apply_error.say(None)
        op = self.op
        show_b = op is None or op.arity >= 2
        self.b_label.setVisible(show_b)
        self.b_combo.setVisible(show_b)
        self.swap_button.setVisible(show_b)
        if not self._name_typed:
            stem = op.stem if op is not None else "y"
            self.name_edit.setText(suggest_name(stem, self.workspace))
        errors: dict[str, str] = {}
        param_errors: dict[str, str] = {}
        if op is None:
            self.about.setText("Pick a tensor, then an op: the panel writes its line of PyTorch."
                               if self.workspace.tensors else self.empty_reason)
            self.detail.say(None)
            self.preview.setText("")
            self.apply_button.setEnabled(False)
            self.form.set_errors({})
            return
        verdict = None
        try:
            params = self.params()
        except BuildError as exc:
            param_errors[exc.field] = exc.message
            params = None
        if params is not None and self.workspace.tensors:
            try:
                operands = self._checked_operands()
                verdict = self._check(op, operands, params)
            except BuildError as exc:
                errors[exc.field] = exc.message
        elif not self.workspace.tensors:
            verdict = self.verdicts.get(op.id)
        if verdict is not None:
            self.verdicts[op.id] = verdict
            item = self._op_items.get(op.id)
            if item is not None:
                item.setText(1, verdict_text(verdict))
        name = self.name_edit.text().strip()
        problem = name_problem(name, self.workspace)
        if problem:
            errors["name"] = problem
        head = f"{op.title}: {op.doc}" if getattr(op, "doc", "") else op.title
        if verdict is not None and verdict.ok:
            self.about.setText(f"{head}\n{verdict_text(verdict)}")
        else:
            self.about.setText(head)
        self.detail.say(verdict.reason if verdict is not None and not verdict.ok else None)
        self.form.set_errors({**errors, **param_errors})
        line = ""
        if verdict is not None and verdict.ok and not errors and not param_errors:
            try:
                text, _imports = op_expression(op, self._checked_operands(), params, self.source,
                                              self.workspace.taken)
                line = f"{name} = {text}"
            except (BuildError, Exception):
                line = ""
        self.preview.setText(line or "(nothing to write yet: see the reason in red)")
        self.preview.setEnabled(bool(line))
        self._line_ok = bool(line)
        self.apply_button.setEnabled(self._line_ok)

    def _show_build_error(self, exc: BuildError) -> None:
        if exc.field in self.form.errors:
            errors = self.form.shown_errors()
            errors[exc.field] = exc.message
            self.form.set_errors(errors)
        else:
            self.apply_error.say(str(exc))

    # ------------------------------------------------------------------------------ dialogs
    def _filter_ops(self, text: str) -> None:
        query = text.strip()
        ids = {op.id for op in catalog.search(query)} if query else set(self._op_items)
        if query:
            words = query.lower().split()
            for op in self._module_ops.values():
                haystack = " ".join((op.title, op.group, *op.keywords)).lower()
                if all(w in haystack for w in words):
                    ids.add(op.id)
        for parent in self._group_items.values():
            shown = 0
            for i in range(parent.childCount()):
                child = parent.child(i)
                hide = child.data(0, ROLE_OP) not in ids
                child.setHidden(hide)
                shown += not hide
            parent.setHidden(shown == 0)

    def focus_search(self) -> None:
        """Build ▸ Apply an Op (Ctrl+K): type to filter, Enter picks, Enter again writes."""
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def pick_first_match(self) -> None:
        """Enter in the search: select the first op shown that the operands allow (else the
        first shown, to say why not) and move to the result's name, where Enter applies."""
        shown = self.visible_ops()
        if not shown:
            return
        ranked = [op.id for op in catalog.best_matches(self.search.text())]
        ranked += list(self._module_ops)
        shown = [op_id for op_id in ranked if op_id in shown] or shown
        valid = [op_id for op_id in shown if self.verdicts.get(op_id) is not None
                 and self.verdicts[op_id].ok]
        self.select_op((valid or shown)[0])
        self.name_edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.name_edit.selectAll()

    def visible_ops(self) -> list[str]:
        """The ids of the ops the tree shows (after the search), in display order."""
        out = []
        for parent in self._group_items.values():
            if parent.isHidden():
                continue
            for i in range(parent.childCount()):
                child = parent.child(i)
                if not child.isHidden():
                    out.append(child.data(0, ROLE_OP))
        return out

    def _open_dialog(self, which: str) -> None:
        """Open a form as a window-modal sheet; its CodeEdit goes out as ``edit_requested``."""
        if self._reason is not None:
            return
        if callable(self.form_opener):
            self.form_opener(which)
            return
        dialog = self.make_dialog(which)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda d=dialog: self._dialog_accepted(d))
        self.dialog = dialog
        dialog.open()

    def make_dialog(self, which: str):
        from .layer_dialog import NewLayerDialog
        from .loop_dialog import TrainingLoopDialog
        from .optimizer_dialog import OptimizerDialog
        from .tensor_dialog import NewTensorDialog

        cls = {"tensor": NewTensorDialog, "layer": NewLayerDialog, "optimizer": OptimizerDialog,
               "loop": TrainingLoopDialog}[which]
        return cls(self.workspace, self.source, self)

    def _dialog_accepted(self, dialog) -> None:
        edit = getattr(dialog, "accepted_edit", None)
        if edit is not None:
            self.edit_requested.emit(edit)


def _bare(layout_class, spacing: int):
    """A widget and its layout (``layout_class``) with no margins: a part of a larger form."""
    host = QWidget()
    layout = layout_class(host)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(spacing)
    return host, layout


def _operand_combo(object_name: str) -> QComboBox:
    combo = QComboBox()
    combo.setObjectName(object_name)
    combo.setMinimumContentsLength(4)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return combo
