"""The builder's widgets (issue 8): the Build panel's op palette, the New Tensor / Optimizer /
Training Loop forms and the graph's context menu, on workspaces of real engine runs.

What is asserted is what the user reads: the line the preview shows, the reason under a field,
the enabled state of OK and of an op. PyTorch's messages are computed with real torch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

import engine.script
from app.builder import BuildPanel
from engine.builder import catalog
from engine.builder.check import apply_op
from engine.builder.workspace import describe

SHOTS = Path(__file__).resolve().parent / "screenshots" / "build"

SCRIPT = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.ones(2, 3, requires_grad=True)
v = torch.zeros(2, 3)
y = x * 2
"""

TRAINING = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
target = torch.tensor([0.5, 0.5])
pred = w * 3
loss = ((pred - target) ** 2).mean()
print(loss)
"""


def workspace_of(script: str):
    return describe(engine.script.run(script), script)


def shoot(widget, name: str, size=None) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if size is not None:
        widget.resize(*size)
    QApplication.processEvents()
    path = SHOTS / f"{name}.png"
    assert widget.grab().save(str(path))
    return path


@pytest.fixture
def panel(qtbot):
    panel = BuildPanel()
    qtbot.addWidget(panel)
    panel.set_workspace(workspace_of(SCRIPT), SCRIPT)
    panel.resize(560, 820)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def list_texts(panel) -> list[str]:
    return [panel.tensor_list.item(i).text() for i in range(panel.tensor_list.count())]


def click_tensor(qtbot, panel, name: str, ctrl: bool = False) -> None:
    for i in range(panel.tensor_list.count()):
        item = panel.tensor_list.item(i)
        if item.data(Qt.ItemDataRole.UserRole) == name:
            rect = panel.tensor_list.visualItemRect(item)
            mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
            qtbot.mouseClick(panel.tensor_list.viewport(), Qt.MouseButton.LeftButton, mod,
                             rect.center())
            return
    raise AssertionError(f"{name} is not listed")


def click_op(qtbot, panel, op_id: str) -> None:
    item = panel.op_item(op_id)
    panel.op_tree.scrollToItem(item)
    rect = panel.op_tree.visualItemRect(item)
    qtbot.mouseClick(panel.op_tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.op is not None and panel.op.id == op_id


# -- the panel -------------------------------------------------------------------------------

def test_panel_lists_the_tensors_with_shape_and_origin(panel):
    texts = list_texts(panel)
    assert "x  float32[3]  leaf · requires_grad" in texts
    assert "v  float32[2, 3]  leaf" in texts
    assert "y  float32[3]  MulBackward0" in texts


def test_selecting_x_and_mul_writes_x_times_x(qtbot, panel):
    with qtbot.waitSignal(panel.selection_changed) as picked:
        click_tensor(qtbot, panel, "x")
    assert picked.args == [["x"]]
    click_op(qtbot, panel, "mul")
    assert panel.b_combo.currentText() == "x"
    assert panel.op_item("mul").text(1) == "→ float32[3] · MulBackward0"
    assert panel.name_edit.text() == "y1"  # y is taken
    assert panel.preview.text() == "y1 = x * x"
    assert panel.apply_button.isEnabled()
    shoot(panel, "panel_valid_op")

    with qtbot.waitSignal(panel.edit_requested) as sent:
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    edit = sent.args[0]
    assert edit.source.rstrip("\n").splitlines()[-1] == "y1 = x * x"
    assert edit.source.startswith(SCRIPT.rstrip("\n"))
    ws = workspace_of(SCRIPT)
    assert edit == apply_op(SCRIPT, ws, catalog.BY_ID["mul"], ["x", "x"], {}, "y1")


def test_add_defaults_to_a_number_and_enter_in_the_name_applies(qtbot, panel):
    click_tensor(qtbot, panel, "x")
    click_op(qtbot, panel, "add")
    assert panel.preview.text() == "y1 = x + 1"
    panel.name_edit.setFocus()
    qtbot.keyClicks(panel.name_edit, "")
    panel.name_edit.selectAll()
    qtbot.keyClicks(panel.name_edit, "shifted")
    assert panel.preview.text() == "shifted = x + 1"
    with qtbot.waitSignal(panel.edit_requested) as sent:
        qtbot.keyClick(panel.name_edit, Qt.Key.Key_Return)
    assert sent.args[0].source.rstrip("\n").endswith("shifted = x + 1")
    # the typed name survives a change of op
    click_op(qtbot, panel, "sub")
    assert panel.preview.text() == "shifted = x - 1"


def test_a_taken_name_is_refused_beside_the_field_and_nothing_is_sent(qtbot, panel):
    click_tensor(qtbot, panel, "x")
    click_op(qtbot, panel, "mul")
    panel.name_edit.selectAll()
    qtbot.keyClicks(panel.name_edit, "w")
    assert "already a tensor" in panel.form.error("name")
    assert not panel.apply_button.isEnabled()
    with qtbot.assertNotEmitted(panel.edit_requested):
        qtbot.keyClick(panel.name_edit, Qt.Key.Key_Return)
    assert panel.form.error("name")


def test_two_picked_tensors_are_a_and_b_in_the_order_picked(qtbot, panel):
    click_tensor(qtbot, panel, "v")
    with qtbot.waitSignal(panel.selection_changed) as picked:
        click_tensor(qtbot, panel, "w", ctrl=True)
    assert picked.args == [["v", "w"]]
    click_op(qtbot, panel, "sub")
    assert panel.preview.text() == "y1 = v - w"
    qtbot.mouseClick(panel.swap_button, Qt.MouseButton.LeftButton)
    assert panel.preview.text() == "y1 = w - v"


def test_matmul_of_mismatched_shapes_is_greyed_with_torchs_message(qtbot, panel):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as real:
        torch.zeros(2, 3) @ torch.zeros(2, 3)
    message = f"RuntimeError: {real.value}"  # torch's words, as the panel shows them
    click_tensor(qtbot, panel, "w")
    click_tensor(qtbot, panel, "v", ctrl=True)
    item = panel.op_item("matmul")
    assert item.toolTip(0) == message
    assert item.text(1) == message
    click_op(qtbot, panel, "matmul")
    assert panel.verdicts["matmul"].reason == message
    assert panel.detail.text() == message and panel.detail.isVisible()
    assert not panel.apply_button.isEnabled()
    assert panel.line() == ""
    shoot(panel, "panel_disabled_op")
    with qtbot.assertNotEmitted(panel.edit_requested):
        panel.apply()


def test_unary_ops_hide_b_and_parameters_write_keywords(qtbot, panel):
    click_tensor(qtbot, panel, "w")
    click_op(qtbot, panel, "sum")
    assert panel.b_combo.isHidden()
    assert panel.preview.text() == "s = w.sum()"
    qtbot.keyClicks(panel.param_editors["dim"], "1")
    assert panel.preview.text() == "s = w.sum(dim=1)"
    assert panel.op_item("sum").text(1).startswith("→ float32[2]")
    qtbot.keyClicks(panel.param_editors["dim"], "x")
    assert panel.form.error("dim") == "'1x' is not a whole number"
    shoot(panel, "panel_param_error")
    assert not panel.apply_button.isEnabled()


def test_search_filters_the_ops(qtbot, panel):
    qtbot.keyClicks(panel.search, "loss")
    shown = panel.visible_ops()
    assert "mse_loss" in shown and "cross_entropy" in shown
    assert "mul" not in shown and "matmul" not in shown
    assert panel.op_item("mul").isHidden()
    panel.search.clear()
    assert "mul" in panel.visible_ops()


def test_selection_from_the_graph_does_not_echo(qtbot, panel):
    with qtbot.assertNotEmitted(panel.selection_changed):
        panel.set_selection(["v", "w"])
    assert sorted(i.data(Qt.ItemDataRole.UserRole) for i in panel.tensor_list.selectedItems()) \
        == ["v", "w"]
    assert panel.a_combo.currentText() == "v" and panel.b_combo.currentText() == "w"


def test_disabled_while_running_says_why(qtbot, panel):
    panel.set_enabled_reason("The script is running: the builder waits for it to pause.")
    assert not panel.body.isEnabled()
    assert panel.banner.isVisible()
    assert "running" in panel.banner.text()
    assert not panel.apply_button.isEnabled() and not panel.new_tensor_button.isEnabled()
    shoot(panel, "panel_disabled_while_running")
    panel.set_enabled_reason(None)
    assert panel.body.isEnabled() and not panel.banner.isVisible()


# -- New Tensor ------------------------------------------------------------------------------

@pytest.fixture
def tensor_dialog(qtbot):
    from app.builder.tensor_dialog import NewTensorDialog

    dialog = NewTensorDialog(workspace_of(SCRIPT), SCRIPT)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def retype(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClicks(edit, text) if text else qtbot.keyClick(edit, Qt.Key.Key_Delete)


def test_new_tensor_suggests_a_free_name_and_writes_the_line(qtbot, tensor_dialog):
    d = tensor_dialog
    assert d.name_edit.text() == "b"  # x and w are taken
    retype(qtbot, d.values_edit, "[0.5, -1.0]")
    assert d.ok_button.isEnabled()
    assert d.preview.text() == "b = torch.tensor([0.5, -1.0], requires_grad=True)"
    with qtbot.waitSignal(d.accepted):
        qtbot.mouseClick(d.ok_button, Qt.MouseButton.LeftButton)
    assert d.accepted_edit.source.rstrip("\n").endswith(
        "b = torch.tensor([0.5, -1.0], requires_grad=True)")


def test_new_tensor_refuses_a_ragged_list_with_torchs_message(qtbot, tensor_dialog):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as real:
        torch.tensor([[1.0, 2.0], [3.0]])
    d = tensor_dialog
    retype(qtbot, d.values_edit, "[[1.0, 2.0], [3.0]]")
    assert d.fields.error("values") == str(real.value)
    assert d.fields.errors["values"].isVisible()
    assert not d.ok_button.isEnabled()
    shoot(d, "tensor_dialog_ragged")


def test_new_tensor_refuses_a_taken_name(qtbot, tensor_dialog):
    d = tensor_dialog
    retype(qtbot, d.name_edit, "x")
    assert "already a tensor" in d.fields.error("name")
    assert not d.ok_button.isEnabled()
    retype(qtbot, d.name_edit, "fresh")
    assert d.fields.error("name") == "" and d.ok_button.isEnabled()


def test_new_tensor_refuses_requires_grad_on_an_int_dtype(qtbot, tensor_dialog):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as real:
        torch.zeros(3, dtype=torch.int64, requires_grad=True)
    d = tensor_dialog
    d.set_mode("zeros")
    assert d.fields.errors["values"].isHidden() and not d.fields.field_visible("values")
    assert d.fields.field_visible("shape")
    d.dtype_combo.setCurrentText("int64")
    assert d.fields.error("requires_grad").startswith(str(real.value))
    assert not d.ok_button.isEnabled()
    shoot(d, "tensor_dialog_int_grad")
    qtbot.mouseClick(d.grad_check, Qt.MouseButton.LeftButton)
    assert not d.grad_check.isChecked()
    assert d.fields.error("requires_grad") == ""
    assert d.ok_button.isEnabled()
    assert d.preview.text() == "b = torch.zeros(3, dtype=torch.int64)"


# -- the dark theme --------------------------------------------------------------------------

@pytest.fixture
def dark_theme(qapp):
    from app.theme import apply_theme

    style, palette, sheet = qapp.style().name(), qapp.palette(), qapp.styleSheet()
    apply_theme(qapp, True)
    yield
    qapp.setStyle(style)
    qapp.setPalette(palette)
    qapp.setStyleSheet(sheet)


def test_dark_theme_keeps_reasons_readable(qtbot, dark_theme, panel):
    from PySide6.QtGui import QColor, QPalette

    click_tensor(qtbot, panel, "w")
    click_tensor(qtbot, panel, "v", ctrl=True)
    click_op(qtbot, panel, "matmul")
    base = panel.palette().color(QPalette.ColorRole.Base)
    red = QColor(panel.detail.styleSheet().split("color:")[1].split(";")[0].strip())
    assert abs(red.lightness() - base.lightness()) > 60  # the error red reads on the dark base
    shoot(panel, "panel_dark")


def test_an_empty_script_points_to_new_tensor(qtbot):
    from engine.builder.workspace import Workspace

    panel = BuildPanel()
    qtbot.addWidget(panel)
    panel.set_workspace(Workspace.empty(), "")
    assert panel.tensor_list.count() == 0
    assert not any(v.ok for v in panel.verdicts.values())
    assert "New Tensor" in panel.op_item("mul").toolTip(0)
    panel.select_op("mul")
    assert not panel.apply_button.isEnabled()


def test_after_apply_the_next_workspace_suggests_a_fresh_name(qtbot, panel):
    click_tensor(qtbot, panel, "x")
    click_op(qtbot, panel, "mul")
    with qtbot.waitSignal(panel.edit_requested) as sent:
        panel.apply()
    source = sent.args[0].source
    panel.set_workspace(workspace_of(source), source)  # as the window does after the re-run
    assert "y1  float32[3]  MulBackward0" in list_texts(panel)
    assert panel.preview.text() == "y2 = x * x"
    assert [i.data(Qt.ItemDataRole.UserRole) for i in panel.tensor_list.selectedItems()] == ["x"]


def test_functional_ops_add_their_import(qtbot, panel):
    click_tensor(qtbot, panel, "w")
    click_tensor(qtbot, panel, "v", ctrl=True)
    click_op(qtbot, panel, "mse_loss")
    assert panel.preview.text() == "loss = F.mse_loss(w, v)"
    panel.param_editors["reduction"].setCurrentText("sum")
    assert panel.preview.text() == "loss = F.mse_loss(w, v, reduction='sum')"
    with qtbot.waitSignal(panel.edit_requested) as sent:
        panel.apply()
    assert "import torch.nn.functional as F\n" in sent.args[0].source


# -- Add Optimizer ---------------------------------------------------------------------------

OPTIMIZER_SCRIPT = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
h = w * 2
"""


@pytest.fixture
def optimizer_dialog(qtbot):
    from app.builder.optimizer_dialog import OptimizerDialog

    dialog = OptimizerDialog(workspace_of(OPTIMIZER_SCRIPT), OPTIMIZER_SCRIPT)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_optimizer_lists_the_trainable_leaves_and_writes_the_line(qtbot, optimizer_dialog):
    d = optimizer_dialog
    listed = [d.params_list.item(i).data(Qt.ItemDataRole.UserRole)
              for i in range(d.params_list.count())]
    assert listed == ["w", "b"]  # h is computed: not a parameter
    assert d.checked_params() == ("w", "b")
    qtbot.keyClicks(d.hyper_editors["lr"], "0.1")
    assert d.ok_button.isEnabled()
    assert d.preview.text() == "optimizer = torch.optim.SGD([w, b], lr=0.1)"
    d.kind_combo.setCurrentText("Adam")
    assert "betas" in d.hyper_editors and d.hyper_editors["lr"].text() == ""
    assert d.hyper_editors["lr"].placeholderText() == "0.001"
    with qtbot.waitSignal(d.accepted):
        qtbot.mouseClick(d.ok_button, Qt.MouseButton.LeftButton)
    assert d.accepted_edit.source.rstrip("\n").endswith("optimizer = torch.optim.Adam([w, b])")


def test_optimizer_refuses_a_negative_learning_rate_with_torchs_message(qtbot, optimizer_dialog):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as real:
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=-1)
    d = optimizer_dialog
    qtbot.keyClicks(d.hyper_editors["lr"], "-1")
    assert d.fields.error("lr") == str(real.value)
    assert d.fields.errors["lr"].isVisible()
    assert not d.ok_button.isEnabled()
    shoot(d, "optimizer_dialog_lr")


def test_optimizer_needs_a_parameter(qtbot, optimizer_dialog):
    d = optimizer_dialog
    d.set_checked([])
    assert "empty parameter list" in d.fields.error("params")
    assert not d.ok_button.isEnabled()


# -- Training Loop ---------------------------------------------------------------------------

@pytest.fixture
def loop_dialog(qtbot):
    from app.builder.loop_dialog import TrainingLoopDialog

    dialog = TrainingLoopDialog(workspace_of(TRAINING), TRAINING)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_loop_preview_shows_the_loop_and_what_moves(qtbot, loop_dialog):
    d = loop_dialog
    assert d.optimizer_combo.currentText() == "opt" and d.loss_combo.currentText() == "loss"
    assert d.ok_button.isEnabled()
    loop = d.preview.text().splitlines()
    assert loop[0] == "for iteration in range(100):"
    assert "    pred = w * 3" in loop and "    opt.step()" in loop
    moves = d.moves.text()
    assert "Move into the loop:" in moves
    assert "line 5       pred = w * 3" in moves
    assert "Move after the loop:" in moves and "print(loss)" in moves
    d.iterations_spin.setValue(20)
    assert d.preview.text().splitlines()[0] == "for iteration in range(20):"
    shoot(d, "loop_dialog")
    with qtbot.waitSignal(d.accepted):
        qtbot.mouseClick(d.ok_button, Qt.MouseButton.LeftButton)
    assert "for iteration in range(20):\n    opt.zero_grad()\n" in d.accepted_edit.source


def test_loop_refuses_zero_iterations_and_a_taken_variable(qtbot, loop_dialog):
    d = loop_dialog
    d.iterations_spin.setValue(0)
    assert d.fields.error("iterations")
    assert not d.ok_button.isEnabled() and d.moves.isHidden()
    d.iterations_spin.setValue(5)
    retype(qtbot, d.variable_edit, "w")
    assert "already a tensor" in d.fields.error("variable")
    assert not d.ok_button.isEnabled()
    shoot(d, "loop_dialog_error")


# -- the graph's context menu ----------------------------------------------------------------

def test_node_menu_writes_the_action_and_explains_the_disabled(qtbot):
    torch = pytest.importorskip("torch")
    from app.builder.node_menu import fill_node_menu

    with pytest.raises(RuntimeError) as real:
        torch.zeros(3).item()
    ws = workspace_of(SCRIPT)
    menu = QMenu()
    edits = []
    fill_node_menu(menu, ws, "y", SCRIPT, edits.append)
    assert menu.toolTipsVisible()
    actions = {a.data(): a for a in menu.actions()}
    item = actions["item"]
    assert not item.isEnabled()
    assert item.toolTip().endswith(str(real.value)) and item.statusTip() == item.toolTip()
    assert actions["retain_grad"].isEnabled()
    assert actions["retain_grad"].toolTip() == "y.retain_grad()"
    actions["retain_grad"].trigger()
    assert len(edits) == 1 and edits[0].source.rstrip("\n").endswith("y.retain_grad()")
    actions["detach"].trigger()
    assert edits[1].source.rstrip("\n").endswith("y_detached = y.detach()")
    menu.popup(menu.pos())
    qtbot.waitExposed(menu)
    shoot(menu, "node_menu")
    menu.close()


def test_b_that_is_neither_a_tensor_nor_a_number_is_refused_under_operands(qtbot, panel):
    click_tensor(qtbot, panel, "x")
    click_op(qtbot, panel, "mul")
    panel.b_combo.lineEdit().selectAll()
    qtbot.keyClicks(panel.b_combo.lineEdit(), "2.5")
    assert panel.preview.text() == "y1 = x * 2.5"
    panel.b_combo.lineEdit().selectAll()
    qtbot.keyClicks(panel.b_combo.lineEdit(), "nope")
    assert "'nope' is neither a tensor" in panel.form.error("operands")
    assert not panel.apply_button.isEnabled()
    with qtbot.assertNotEmitted(panel.edit_requested):
        panel.apply()


def test_new_tensor_button_opens_the_form_and_its_edit_goes_out(qtbot, panel):
    qtbot.mouseClick(panel.new_tensor_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    assert dialog is not None and dialog.isVisible()
    with qtbot.waitSignal(panel.edit_requested) as sent:
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert sent.args[0].source.rstrip("\n").endswith(
        "b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)")
    opened = []
    panel.form_opener = opened.append
    qtbot.mouseClick(panel.loop_button, Qt.MouseButton.LeftButton)
    assert opened == ["loop"]
