"""Building by pointing, end to end in the window (issue 8).

Every test drives the real widgets (the Build panel, its forms, the graph's context menu) and
checks what the user must get: the editor's text is the PyTorch a person would write by hand,
and the graph and the gradients are those of that code, run in real PyTorch too.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.app.window_support import click_node, wait_idle

torch = pytest.importorskip("torch")

NEW_FILE = "import torch\n\n"


@pytest.fixture
def blank(make_window, qtbot, monkeypatch):
    """A window on File ▸ New, its Build panel docked."""
    # use_worker=False: these tests compare the script's live tensors (engine_names) with
    # PyTorch's, and a worker keeps the script's names in its own process
    monkeypatch.setenv("GRADSTEP_WORKER", "0")
    window = make_window(open_demo=False)
    window.actions_by_id["file.new"].trigger()
    wait_idle(qtbot, window)
    window.ensure_panels()
    assert window.builder.panel is not None
    return window


def graph_has(window, node_id: str) -> bool:
    graph = window.controller.snapshot.graph
    return graph is not None and node_id in graph


def wait_built(qtbot, window, node_id: str) -> None:
    """Until the re-run after a gesture has published a graph with ``node_id``."""
    qtbot.waitUntil(lambda: graph_has(window, node_id)
                    and window.controller.snapshot.status == "finished", timeout=20000)
    wait_idle(qtbot, window)


def new_tensor(qtbot, window, name: str, values: str, *, requires_grad: bool = True) -> None:
    window.actions_by_id["build.new_tensor"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.name_edit.setText(name)
    dialog.set_mode("values")
    dialog.values_edit.setText(values)
    dialog.grad_check.setChecked(requires_grad)
    assert dialog.ok_button.isEnabled(), dialog.fields.shown_errors()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    wait_built(qtbot, window, f"t:{name}")


def pick(qtbot, window, *names: str) -> None:
    """Click the tensors in the graph (Ctrl+click for the second), as a user picks operands."""
    click_node(qtbot, window, f"t:{names[0]}")
    view = window.graph_view
    for name in names[1:]:
        item = view.nodes[f"t:{name}"]
        view.canvas.centerOn(item)
        point = view.canvas.mapFromScene(item.scenePos())
        qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier, point)
    assert window.builder.panel.picked == list(names)


def apply_op(qtbot, window, op_id: str, name: str, *, b: str | None = None,
             params: dict | None = None) -> None:
    panel = window.builder.panel
    panel.search.clear()
    panel.select_op(op_id)
    if b is not None:
        panel.b_combo.setCurrentText(b)
    for key, text in (params or {}).items():
        panel.param_editors[key].setText(text)
    panel.name_edit.clear()
    qtbot.keyClicks(panel.name_edit, name)
    assert panel.apply_button.isEnabled(), panel.about.text()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wait_built(qtbot, window, f"t:{name}")


def node_action(qtbot, window, name: str, action_id: str) -> None:
    """Right-click the tensor in the graph and pick the action from its menu."""
    menu = window.builder.context_menu(f"t:{name}", None)
    action = menu.findChild(type(menu.actions()[0]), f"node_action_{action_id}")
    assert action is not None and action.isEnabled(), action.toolTip() if action else action_id
    before = window.editor.toPlainText()
    action.trigger()
    qtbot.waitUntil(lambda: window.editor.toPlainText() != before)
    qtbot.waitUntil(lambda: window.controller.source == window.editor.toPlainText()
                    and window.controller.snapshot.status in ("finished", "error"),
                    timeout=20000)
    wait_idle(qtbot, window)


def add_optimizer_and_loop(qtbot, window, params, *, lr: str, iterations: int) -> None:
    """Add Optimizer (SGD on ``params``) then Wrap in a Training Loop, through their forms."""
    window.actions_by_id["build.add_optimizer"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.set_checked(params)
    dialog.hyper_editors["lr"].setText(lr)
    assert dialog.ok_button.isEnabled(), dialog.fields.shown_errors()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "optimizer" in window.controller.snapshot.workspace.optimizers
                    if window.controller.snapshot.workspace else False, timeout=20000)
    wait_idle(qtbot, window)

    window.actions_by_id["build.training_loop"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.optimizer_combo.setCurrentText("optimizer")
    dialog.loss_combo.setCurrentText("loss")
    dialog.iterations_spin.setValue(iterations)
    dialog.print_spin.setValue(0)
    assert dialog.ok_button.isEnabled(), dialog.fields.shown_errors()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: f"for iteration in range({iterations}):" in window.controller.source
                    and window.controller.snapshot.status == "finished", timeout=30000)
    wait_idle(qtbot, window)


def run_in_torch(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<by hand>", "exec"), namespace)
    return namespace


def engine_names(window) -> dict:
    return window.controller.session.visible_names()


# ------------------------------------------------------------------------------- the seed demo
SEED_BY_HAND = """\
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
t = y + 1
t.retain_grad()
z = t.sum()
z.backward()
"""


def test_seed_demo_built_by_pointing_is_the_hand_written_script(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    pick(qtbot, window, "x")
    apply_op(qtbot, window, "mul", "y", b="x")
    pick(qtbot, window, "y")
    apply_op(qtbot, window, "add", "t", b="1")
    node_action(qtbot, window, "t", "retain_grad")
    pick(qtbot, window, "t")
    apply_op(qtbot, window, "sum", "z")
    node_action(qtbot, window, "z", "backward")

    assert window.editor.toPlainText() == SEED_BY_HAND
    assert window.controller.snapshot.status == "finished"
    ours, theirs = engine_names(window), run_in_torch(SEED_BY_HAND)
    for name in ("x", "t"):
        np.testing.assert_allclose(ours[name].grad.numpy(), theirs[name].grad.numpy())
    assert not ours["y"].retains_grad and not theirs["y"].retains_grad  # a non-leaf
    graph = window.controller.snapshot.graph
    names = {a.get("node_name") for _, a in graph.nodes(data=True) if a["kind"] == "function"}
    assert {"MulBackward0", "AddBackward0", "SumBackward0"} <= names
    assert theirs["t"].grad_fn.name() == "AddBackward0"
    # The graph shows the gradient that flowed: x's grad in the graph is torch's.
    np.testing.assert_allclose(graph.nodes["t:x"]["grad"], theirs["x"].grad.numpy())


def test_undo_takes_back_the_line_and_the_graph_change_together(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    before = window.editor.toPlainText()
    pick(qtbot, window, "x")
    apply_op(qtbot, window, "mul", "y", b="x")
    after = window.editor.toPlainText()
    assert after == before + "y = x * x\n"

    window.actions_by_id["edit.undo"].trigger()
    assert window.editor.toPlainText() == before
    qtbot.waitUntil(lambda: not graph_has(window, "t:y") and graph_has(window, "t:x"),
                    timeout=20000)
    wait_idle(qtbot, window)
    assert "y" not in engine_names(window)

    window.actions_by_id["edit.redo"].trigger()
    assert window.editor.toPlainText() == after
    wait_built(qtbot, window, "t:y")


def test_hand_edits_and_pointing_mix(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    # A line typed by hand, not run yet: its name is taken all the same.
    editor = window.editor
    cursor = editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    qtbot.keyClicks(editor, "y = x * 2")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    pick(qtbot, window, "x")
    panel = window.builder.panel
    panel.select_op("exp")
    # The typed line owns y: the palette stops suggesting it without a run.
    qtbot.waitUntil(lambda: "y" in panel.workspace.taken)
    assert panel.name_edit.text() not in ("y", "")
    apply_op(qtbot, window, "exp", "e")
    text = editor.toPlainText()
    assert text.endswith("y = x * 2\ne = torch.exp(x)\n")
    # The re-run took the typed line too: both results are in the graph.
    assert graph_has(window, "t:y") and graph_has(window, "t:e")
    np.testing.assert_allclose(engine_names(window)["e"].detach().numpy(),
                               np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


def test_backward_of_a_non_scalar_offers_a_gradient_argument(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    pick(qtbot, window, "x")
    apply_op(qtbot, window, "mul", "y", b="x")
    menu = window.builder.context_menu("t:y", None)
    ids = [a.objectName() for a in menu.actions()]
    assert "node_action_backward" not in ids
    node_action(qtbot, window, "y", "backward_ones")
    text = window.editor.toPlainText()
    assert text.endswith("y.backward(gradient=torch.ones_like(y))\n")
    np.testing.assert_allclose(engine_names(window)["x"].grad.numpy(),
                               run_in_torch(text)["x"].grad.numpy())


def test_item_of_three_elements_is_refused_with_torchs_reason(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    menu = window.builder.context_menu("t:x", None)
    item = menu.findChild(type(menu.actions()[0]), "node_action_item")
    assert not item.isEnabled()
    with pytest.raises(RuntimeError) as raised:
        torch.tensor([1.0, 2.0, 3.0]).item()
    assert str(raised.value) in item.toolTip()


def test_the_graphs_right_click_opens_the_tensor_menu(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    view = window.graph_view
    item = view.nodes["t:x"]
    view.canvas.centerOn(item)
    point = view.canvas.mapFromScene(item.scenePos())
    with qtbot.waitSignal(view.canvas.context_menu_requested) as shown:
        from PySide6.QtGui import QContextMenuEvent

        event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point,
                                  view.canvas.viewport().mapToGlobal(point))
        view.canvas.contextMenuEvent(event)
    assert shown.args[0] == "t:x"
    menu = window.builder.menu
    assert menu.isVisible()
    titles = [a.text() for a in menu.actions()]
    assert any("retain_grad" in t for t in titles) and "Apply an Op…" in titles
    assert view.selected_ids() == ["t:x"]
    menu.close()


# --------------------------------------------------------------------------------- scaffolds
MLP_DATA = {
    "X": "[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]",
    "Y": "[[0.0], [1.0], [1.0], [0.0]]",
    "W1": "[[0.5, -0.4, 0.3], [-0.2, 0.6, 0.1]]",
    "b1": "[0.1, 0.0, -0.1]",
    "W2": "[[0.7], [-0.5], [0.2]]",
    "b2": "[0.05]",
}


def test_an_mlp_built_with_the_scaffolds_trains_10_iterations_like_pytorch(qtbot, blank):
    window = blank
    for name, values in MLP_DATA.items():
        new_tensor(qtbot, window, name, values, requires_grad=name not in ("X", "Y"))
    pick(qtbot, window, "X", "W1")
    apply_op(qtbot, window, "matmul", "h")
    pick(qtbot, window, "h", "b1")
    apply_op(qtbot, window, "add", "h1")
    pick(qtbot, window, "h1")
    apply_op(qtbot, window, "relu", "a")
    pick(qtbot, window, "a", "W2")
    apply_op(qtbot, window, "matmul", "o")
    pick(qtbot, window, "o", "b2")
    apply_op(qtbot, window, "add", "out")
    pick(qtbot, window, "out", "Y")
    apply_op(qtbot, window, "mse_loss", "loss")

    add_optimizer_and_loop(qtbot, window, ["W1", "b1", "W2", "b2"], lr="0.5", iterations=10)

    text = window.editor.toPlainText()
    assert "optimizer = torch.optim.SGD([W1, b1, W2, b2], lr=0.5)" in text
    assert "    optimizer.zero_grad()" in text and "    loss.backward()" in text
    assert window.controller.session.counters.step == 10
    ours, theirs = engine_names(window), run_in_torch(text)
    for name in ("W1", "b1", "W2", "b2", "loss"):
        np.testing.assert_allclose(ours[name].detach().numpy(), theirs[name].detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    # It trained: the loss went down from the first iteration's.
    losses = [value for _, value in window.controller.session.losses]
    assert len(losses) == 10 and losses[-1] < losses[0]


def test_building_is_refused_for_a_recording_with_the_reason(qtbot, make_window, tmp_path):
    from engine.files import GraphFile, Recorded, save

    window = make_window(open_demo=False)
    window.ensure_panels()
    recorded = Recorded(nodes=[], edges=[], leaves={})
    path = tmp_path / "recorded.gstep"
    save(path, GraphFile(script="", title="recorded", recorded=recorded))
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    assert not window.actions_by_id["build.new_tensor"].isEnabled()
    panel = window.builder.panel
    assert not panel.body.isEnabled() and "recorded from PyTorch" in panel.banner.text()


def test_screenshots_of_building(qtbot, blank):
    """For people to open and look at (never compared): the palette, a refusal, the menu."""
    from tests.app.test_screenshots import shoot

    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    pick(qtbot, window, "x")
    apply_op(qtbot, window, "mul", "y", b="x")
    pick(qtbot, window, "y")
    panel = window.builder.panel
    panel.select_op("sum")
    qtbot.waitUntil(lambda: all(e.isVisible() for e in panel.param_editors.values()))
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "20_build_palette_sum_of_y")

    pick(qtbot, window, "x", "y")
    panel.select_op("mm")
    assert not panel.apply_button.isEnabled()  # two vectors are no matrices
    shoot(window, "21_build_palette_mm_of_vectors_refused")

    menu = window.builder.context_menu("t:y", window.mapToGlobal(window.rect().center()))
    qtbot.waitUntil(menu.isVisible)
    image = menu.grab()
    assert image.save(str(shoot(window, "22_build_context_menu_window").parent
                          / "22_build_context_menu.png"))
    menu.close()


def test_keyboard_only_ctrl_k_type_enter_enter(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    pick(qtbot, window, "x")
    window.activateWindow()  # the New Tensor form had it; offscreen Qt does not hand it back
    qtbot.waitUntil(window.isActiveWindow)
    action = window.actions_by_id["build.apply_op"]
    assert action.shortcut().toString() == "Ctrl+K"
    action.trigger()
    panel = window.builder.panel
    qtbot.waitUntil(panel.search.hasFocus)
    qtbot.keyClicks(panel.search, "sigm")
    qtbot.keyClick(panel.search, Qt.Key.Key_Return)
    assert panel.op.id == "sigmoid" and panel.name_edit.hasFocus()
    qtbot.keyClick(panel.name_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.editor.toPlainText().endswith(" = torch.sigmoid(x)\n"),
                    timeout=20000)
    line = window.editor.toPlainText().splitlines()[-1]
    name = line.split(" = ")[0]
    wait_built(qtbot, window, f"t:{name}")
    assert line == f"{name} = torch.sigmoid(x)"
    np.testing.assert_allclose(engine_names(window)[name].detach().numpy(),
                               torch.sigmoid(torch.tensor([1.0, 2.0, 3.0])).numpy(), rtol=1e-6)


def test_rerun_after_every_edit_follows_typing(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    window.actions_by_id["build.rerun_on_edit"].setChecked(True)
    editor = window.editor
    editor.setFocus()
    cursor = editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    editor.setTextCursor(cursor)
    qtbot.keyClicks(editor, "w = x.exp()")
    wait_built(qtbot, window, "t:w")
    np.testing.assert_allclose(engine_names(window)["w"].detach().numpy(),
                               np.exp([1.0, 2.0, 3.0]), rtol=1e-6)
    # Half-typed code waits: no run, no error, the last graph stays.
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "v = (x")
    qtbot.wait_until(lambda: window.builder._rerun_timer.isActive() is False, timeout=5000)
    assert window.controller.snapshot.status == "finished"
    assert graph_has(window, "t:w") and not graph_has(window, "t:v")


def test_the_selection_and_inspector_survive_the_rerun_of_a_gesture(qtbot, blank):
    window = blank
    new_tensor(qtbot, window, "x", "[1.0, 2.0, 3.0]")
    pick(qtbot, window, "x")
    menu = window.builder.context_menu("t:x", None)
    menu.findChild(type(menu.actions()[0]), "node_action_tolist").trigger()
    # The new session's first (empty) graph reaches the view when the machine is slow: the
    # selection goes with it, and must come back once the re-run has finished.
    window.graph_view.show_graph(None, None)
    assert window.graph_view.selected_ids() == []
    qtbot.waitUntil(lambda: window.controller.snapshot.status == "finished"
                    and window.controller.source == window.editor.toPlainText(), timeout=20000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.graph_view.selected_ids() == ["t:x"])
    assert window.inspector.node_id == "t:x"
    assert window.builder.panel.picked == ["x"]
    assert "[1.0, 2.0, 3.0]" in window.console.view.toPlainText()


def test_a_form_opens_with_the_typing_in_its_first_field(qtbot, blank):
    from PySide6.QtWidgets import QApplication

    window = blank
    window.actions_by_id["build.new_tensor"].trigger()
    dialog = window.builder.dialog
    qtbot.waitUntil(dialog.isVisible)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.name_edit)
    assert dialog.name_edit.selectedText() == dialog.name_edit.text() != ""
    qtbot.keyClicks(dialog.name_edit, "w 2")  # a space in a field never presses "Write it"
    assert dialog.isVisible() and not dialog.ok_button.isEnabled()
    assert "w 2" in dialog.fields.error("name")
    dialog.reject()


def test_an_opened_script_that_has_not_run_says_how_to_list_its_tensors(qtbot, make_window):
    from app.icons import EXAMPLES

    window = make_window(open_demo=False)
    window.ensure_panels()
    assert window.open_example(str(EXAMPLES / "09_linear_regression_sgd.gstep"))
    wait_idle(qtbot, window)
    panel = window.builder.panel
    assert "has not run yet" in panel.about.text()
    window.actions_by_id["debug.run_to_end"].trigger()
    qtbot.waitUntil(lambda: window.controller.snapshot.status == "finished", timeout=20000)
    wait_idle(qtbot, window)
    assert panel.workspace.tensors and "has not run yet" not in panel.about.text()
    assert panel.workspace.optimizers  # the example's own optimizer, for the loop scaffold


def test_the_graphs_background_menu_makes_tensors_and_layers(qtbot, blank):
    window = blank
    menu = window.builder.context_menu("", None)
    names = {a.objectName(): a for a in menu.actions()}
    assert names["graphMenu.new_tensor"].isEnabled() and names["graphMenu.new_layer"].isEnabled()
    names["graphMenu.new_layer"].trigger()
    qtbot.waitUntil(lambda: window.builder.dialog is not None and window.builder.dialog.isVisible())
    assert type(window.builder.dialog).__name__ == "NewLayerDialog"
    window.builder.dialog.reject()
