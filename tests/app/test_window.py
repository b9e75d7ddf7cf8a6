"""The debugger window, driven through its actions and keys (offscreen, no sleeps)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QKeySequence

from app.actions import ACTIONS
from engine.session.events import Status
from tests.app.window_support import click_node, position, status, trigger, wait_idle

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"

SGD_SCRIPT = """import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
loss = (w * w).sum()
loss.backward()
opt.step()
opt.zero_grad()
print(w.grad)
"""

RUNAWAY_SCRIPT = """i = 0
while True:
    i = i + 1
"""


# ------------------------------------------------------------------------------------- actions
@pytest.mark.parametrize("action_id, keys", [
    ("debug.continue", "F5"), ("debug.step_over", "F10"), ("debug.step_into", "F11"),
    ("debug.step_out", "Shift+F11"), ("debug.stop", "Shift+F5"),
    ("debug.restart", "Ctrl+Shift+F5"), ("debug.toggle_breakpoint", "F9"),
    ("file.new", "Ctrl+N"), ("file.open", "Ctrl+O"), ("file.save", "Ctrl+S"),
    ("file.save_as", "Ctrl+Shift+S"),
])
def test_actions_have_their_debugger_shortcuts(window, action_id, keys):
    action = window.actions_by_id[action_id]
    assert action.shortcut() == QKeySequence(keys)
    assert keys.replace("Shift", "") in action.toolTip().replace("Shift", "") or \
        QKeySequence(keys).toString(QKeySequence.NativeText) in action.toolTip()


def test_every_table_row_is_in_a_menu_and_debug_rows_on_the_toolbar(window):
    in_menus = {a.objectName() for menu in window.menus.values() for a in menu.actions()}
    on_toolbar = {a.objectName() for a in window.toolbar.actions()}
    for spec in ACTIONS:
        assert spec.id in in_menus, spec.id
        if spec.toolbar:
            assert spec.id in on_toolbar, spec.id
        if spec.icon:
            assert not window.actions_by_id[spec.id].icon().isNull(), spec.icon


# ------------------------------------------------------------------------------ the seed demo
def test_opens_on_the_seed_demo_paused_before_backward(window):
    assert "t2.retain_grad()" in window.editor.toPlainText()
    assert status(window) == Status.PAUSED
    line = position(window).line
    assert window.editor.toPlainText().splitlines()[line - 1].strip() == "z.backward()"
    assert window.editor.current_line == line
    graph = window.graph_view.graph
    assert {"t:t1", "t:t2", "t:z"} <= set(graph.nodes)
    labels = {a.get("label") for _, a in graph.nodes(data=True)}
    assert {"MulBackward0", "AddBackward0", "SumBackward0", "AccumulateGrad"} <= labels
    assert "line" in window.status.position.text()


def test_step_into_backward_until_done_then_read_the_grads(qtbot, window):
    # Before backward: t1.grad reads None, and the inspector says why t2 is not a leaf.
    click_node(qtbot, window, "t:t1")
    assert window.inspector.facts["grad"].startswith("None")
    click_node(qtbot, window, "t:t2")
    assert window.inspector.facts["is_leaf"].startswith("False")

    # F11 with the keyboard, then the action, node by node through backward().
    window.activateWindow()
    window.graph_view.canvas.setFocus()
    qtbot.keyClick(window.graph_view.canvas, Qt.Key.Key_F11)
    wait_idle(qtbot, window)
    assert position(window).backward_step == (1, position(window).backward_step[1])
    assert window.graph_view.executing is not None
    assert "backward step 1 of" in window.status.position.text()
    steps = 1
    while position(window) is not None and position(window).backward_step:
        trigger(qtbot, window, "debug.step_into")
        steps += 1
        assert steps < 20
    carried = [e for e in window.graph_view.edges.values() if e.carried]
    assert carried, "edges that carried gradient are marked"

    click_node(qtbot, window, "t:t1")
    assert window.inspector.facts["grad"].startswith("[2., 4., 6.]")
    click_node(qtbot, window, "t:t2")
    facts = window.inspector.facts
    assert facts["grad"].startswith("[1., 1., 1.]")
    assert "retain_grad()" in facts["grad"]
    assert "not a leaf" in facts["is_leaf"] and "AddBackward0" in facts["is_leaf"]
    assert "retain_grad() was called" in facts["is_leaf"]


def test_a_function_node_shows_what_its_vjp_did(qtbot, window):
    trigger(qtbot, window, "debug.step_over")  # run backward() whole
    mul = next(n for n, a in window.graph_view.graph.nodes(data=True)
               if a.get("label") == "MulBackward0")
    click_node(qtbot, window, mul)
    facts = window.inspector.facts
    assert "multiplies the grad by the other factor" in facts["local derivative"]
    assert "[1., 1., 1.]" in facts["incoming grad"]
    assert "2 uses" in facts["outgoing grads"] and "[2., 4., 6.]" in facts["outgoing grads"]


def test_after_zero_grad_the_grads_read_none(qtbot, make_window, tmp_path):
    script = tmp_path / "sgd.py"
    script.write_text(SGD_SCRIPT)
    window = make_window(open_demo=False)
    assert window.open_path(str(script))
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED
    click_node(qtbot, window, "t:w")
    assert window.inspector.facts["grad"].startswith("None")
    assert "None" in window.console.text()
    # The parameter did move: w - 0.1 * 2w (written as torch prints it).
    assert window.inspector.facts["value"].startswith("[0.8000, 1.6000, 2.4000]")


# ------------------------------------------------------------------------------------ errors
def test_a_broken_file_shows_its_error_and_the_session_stays(qtbot, window, tmp_path):
    broken = tmp_path / "broken.gstep"
    broken.write_text('{"format": "gradstep", "version": 1, "script": ')
    session = window.controller.session
    text = window.editor.toPlainText()
    assert not window.open_path(str(broken))
    assert window.controller.session is session
    assert window.editor.toPlainText() == text
    assert "Could not open broken.gstep" in window.console.text()
    assert window.note_banner.isVisible()
    assert status(window) == Status.PAUSED


def test_a_script_error_is_underlined_at_its_line_with_the_explanation(qtbot, make_window,
                                                                      tmp_path):
    script = tmp_path / "nonscalar.py"
    script.write_text("import torch\n\nx = torch.ones(3, requires_grad=True)\ny = x * 2\n"
                      "y.backward()\n")
    window = make_window(open_demo=False)
    assert window.open_path(str(script))
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FAILED
    assert [e.line for e in window.editor.errors] == [5]
    tip = window.editor.errors[0].message
    assert "grad can be implicitly created only for scalar outputs" in tip
    assert window.editor.error_at(5, 2) is not None
    assert any(e.kind == "explanation" for e in window.console.entries)


def test_stop_ends_a_runaway_loop(qtbot, make_window, tmp_path):
    script = tmp_path / "forever.py"
    script.write_text(RUNAWAY_SCRIPT)
    window = make_window(open_demo=False)
    assert window.open_path(str(script))
    window.actions_by_id["debug.continue"].trigger()
    qtbot.waitUntil(lambda: window.status.state.text().startswith("Running"), timeout=10000)
    assert window.actions_by_id["debug.stop"].isEnabled()
    assert not window.actions_by_id["debug.step_over"].isEnabled()
    window.actions_by_id["debug.stop"].trigger()
    wait_idle(qtbot, window, timeout=10000)
    assert status(window) == Status.FINISHED
    assert window.controller.session.status == "stopped"
    # where it stopped: the loop's last statement reached, in the iteration it was in
    last = window.controller.snapshot.timeline[-1]
    assert last.line in (2, 3) and last.iteration is not None
    where = f"line {last.line} (iteration {last.iteration + 1})"
    assert window.status.state.text() == f"Stopped at {where}"
    assert window.console.text().endswith(f"Stopped at {where}.")


# ------------------------------------------------------------------------------------ editor
def test_gutter_click_toggles_a_breakpoint_in_the_session(qtbot, window):
    editor = window.editor
    gutter = editor._gutter
    editor.go_to_line(5)  # in sight, wherever the paused line scrolled the editor
    block = editor.document().findBlockByNumber(4)  # line 5
    y = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).center().y()
    qtbot.mouseClick(gutter, Qt.MouseButton.LeftButton, pos=QPointF(8, y).toPoint())
    assert 5 in editor.breakpoints
    assert 5 in window.controller.session.breakpoints
    qtbot.mouseClick(gutter, Qt.MouseButton.LeftButton, pos=QPointF(8, y).toPoint())
    assert 5 not in window.controller.session.breakpoints


def test_editing_marks_the_title_dirty_and_undo_restores(qtbot, window):
    assert not window.isWindowModified()
    window.editor.setFocus()
    qtbot.keyClicks(window.editor, "# hi")
    assert window.isWindowModified()
    assert "[*]" in window.windowTitle()
    for _ in range(4):
        window.actions_by_id["edit.undo"].trigger()
    assert not window.editor.document().isModified()


def test_highlighting_comes_from_pygments_tokens(window):
    highlighter = window.editor.ensure_highlighter()
    highlighter._lex_document()
    line = window.editor.toPlainText().splitlines().index("import numpy as np")
    spans = highlighter._lines[line]
    assert spans and spans[0][0] == 0 and spans[0][1] == len("import")


def test_edited_text_runs_after_a_restart(qtbot, window):
    window.editor.setPlainText("import torch\na = torch.ones(2, requires_grad=True)\n"
                               "b = (a * 3).sum()\nb.backward()\n")
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED
    click_node(qtbot, window, "t:a")
    assert window.inspector.facts["grad"].startswith("[3., 3.]")


# -------------------------------------------------------------------------------------- files
def test_save_and_reopen_keeps_script_and_breakpoints(qtbot, window, tmp_path):
    path = tmp_path / "saved.gstep"
    assert window.documents.save_to(str(path))
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("saved.gstep")
    lines = set(window.editor.breakpoints)
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    assert window.editor.breakpoints == lines
    assert window.settings.recent_files()[0] == str(path.resolve())


def test_dropping_a_script_opens_it(qtbot, window, tmp_path):
    script = tmp_path / "dropped.py"
    script.write_text("import torch\nx = torch.ones(2)\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(script))])
    event = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.editor.toPlainText() == script.read_text()
    assert window.windowTitle().startswith("dropped.py")


def test_every_example_opens_from_the_gallery(qtbot, window):
    from app.examples import example_entries

    entries = example_entries()
    assert len(entries) >= 5
    for path, _title, _description in entries:
        assert window.open_example(str(path))
        wait_idle(qtbot, window)


def test_the_editor_text_is_autosaved_for_recovery(qtbot, window):
    from engine.files import recovery

    window.editor.appendPlainText("# my unsaved thought")
    window.documents.autosave()
    found = recovery.list_recovered(include_running=True)
    assert any("my unsaved thought" in recovery.recover(e).script for e in found)


def test_layout_and_theme_are_remembered(qtbot, make_window, settings):
    first = make_window(open_demo=False)
    first.actions_by_id["view.dark_theme"].setChecked(True)
    first.docks["console"].hide()
    first.ask_before_discarding = False
    first.close()
    second = make_window(open_demo=False)
    assert second.actions_by_id["view.dark_theme"].isChecked()
    assert not second.docks["console"].isVisible()
    second.actions_by_id["view.dark_theme"].setChecked(False)


# --------------------------------------------------------------------------------- graph view
def test_search_finds_and_selects_a_tensor(qtbot, window):
    window.actions_by_id["edit.find_node"].trigger()
    qtbot.keyClicks(window.graph_view.search, "t2")
    qtbot.keyClick(window.graph_view.search, Qt.Key.Key_Return)
    assert window.graph_view.selected_id() == "t:t2"
    assert window.inspector.node_id == "t:t2"


def test_fit_and_zoom_change_the_view(qtbot, window):
    canvas = window.graph_view.canvas
    before = canvas.zoom()
    window.actions_by_id["view.zoom_in"].trigger()
    assert canvas.zoom() > before
    window.actions_by_id["view.fit"].trigger()
    visible = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    for item in window.graph_view.nodes.values():
        assert visible.contains(item.sceneBoundingRect())


# ------------------------------------------------------------------------------ command line
def test_the_cli_path_never_imports_qt(tmp_path):
    example = sorted(EXAMPLES.glob("*.gstep"))[0]
    code = (
        "import sys\n"
        "from app.__main__ import main\n"
        f"rc = main(['run', {str(example)!r}])\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt was imported'\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Qt was imported" not in done.stderr


def test_module_groups_fold_and_unfold(qtbot, make_window):
    window = make_window(open_demo=False)
    assert window.open_example(str(EXAMPLES / "12_net_module_training.gstep"))
    trigger(qtbot, window, "debug.continue", timeout=60000)
    view = window.graph_view
    unfolded = len(view.nodes)
    window.actions_by_id["view.fold_all"].trigger()
    boxes = [n for n in view.nodes if view.nodes[n].attrs.get("kind") == "group"]
    assert boxes and len(view.nodes) < unfolded
    click_node(qtbot, window, boxes[0])
    assert "nodes" in window.inspector.facts
    # Double-clicking a folded box opens it again.
    canvas = view.canvas
    point = canvas.mapFromScene(view.nodes[boxes[0]].scenePos())
    qtbot.mouseDClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert boxes[0] not in view.nodes
    window.actions_by_id["view.unfold_all"].trigger()
    assert len(view.nodes) == unfolded


def test_big_graphs_get_an_overview(qtbot, make_window, tmp_path):
    script = tmp_path / "chain.py"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
                      "for i in range(40):\n    y = y * 1.01\nz = y.sum()\n")
    window = make_window(open_demo=False)
    assert window.open_path(str(script))
    trigger(qtbot, window, "debug.continue")
    view = window.graph_view
    assert len(view.nodes) > 40
    assert view.overview.isVisible()
    qtbot.waitUntil(lambda: not view.overview.image.isNull())
    before = view.canvas.mapToScene(view.canvas.viewport().rect().center())
    qtbot.mouseClick(view.overview, Qt.MouseButton.LeftButton,
                     pos=view.overview.rect().bottomLeft() + QPointF(10, -10).toPoint())
    after = view.canvas.mapToScene(view.canvas.viewport().rect().center())
    assert after != before


def test_a_files_nan_breakpoint_pauses_at_the_first_nan(qtbot, make_window):
    window = make_window(open_demo=False)
    assert window.open_example(str(EXAMPLES / "14_nan_from_log0.gstep"))
    assert window.actions_by_id["debug.break_on_nan"].isChecked()
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.PAUSED
    line = window.editor.toPlainText().splitlines()[position(window).line - 1]
    assert "log" in line or "backward" in line
    window.actions_by_id["debug.break_on_nan"].setChecked(False)
    assert not window.controller.session.data_breakpoints.nan


def test_a_conditional_breakpoint_pauses_only_when_it_holds(qtbot, make_window, tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("import torch\ntotal = 0\nfor i in range(5):\n    total = total + i\n")
    window = make_window(open_demo=False)
    assert window.open_path(str(script))
    window.editor.set_condition(4, "i == 3")
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.PAUSED
    assert position(window).line == 4 and position(window).iteration == 3
    path = tmp_path / "loop.gstep"
    assert window.documents.save_to(str(path))
    assert window.open_path(str(path))
    assert window.editor.conditions == {4: "i == 3"}


def _recorded_file(path):
    """A tiny graph 'recorded from PyTorch': w -> AccumulateGrad -> MulBackward0 -> loss."""
    import numpy as np

    from engine.files import GraphFile, Recorded, RecordedEdge, RecordedNode, save

    leaf = dict(name="w", is_leaf=True, requires_grad=True, retains_grad=False, shape=[2],
                dtype="torch.float32", group="model.fc")
    nodes = [
        RecordedNode("t:w", "tensor", "w", leaf, value=np.array([1.0, 2.0], np.float32),
                     grad=np.array([2.0, 4.0], np.float32)),
        RecordedNode("t:w/AccumulateGrad", "accumulate", "AccumulateGrad",
                     {"node_name": "torch::autograd::AccumulateGrad", "executed_index": 1,
                      "variable": "t:w", "group": "model.fc"}),
        RecordedNode("loss/grad_fn:MulBackward0", "function", "MulBackward0",
                     {"node_name": "MulBackward0", "executed_index": 0, "group": "model.fc"}),
        RecordedNode("t:loss", "tensor", "loss",
                     dict(name="loss", is_leaf=False, requires_grad=True, retains_grad=False,
                          shape=[2], dtype="torch.float32"),
                     value=np.array([1.0, 4.0], np.float32)),
    ]
    edges = [RecordedEdge("t:w", "t:w/AccumulateGrad"),
             RecordedEdge("t:w/AccumulateGrad", "loss/grad_fn:MulBackward0",
                          np.array([2.0, 4.0], np.float32)),
             RecordedEdge("loss/grad_fn:MulBackward0", "t:loss")]
    save(path, GraphFile(script="", title="recorded",
                         recorded=Recorded(nodes, edges, ["t:w"])))


def test_a_file_recorded_from_pytorch_shows_its_graph_folded(qtbot, make_window, tmp_path):
    path = tmp_path / "recorded.gstep"
    _recorded_file(path)
    window = make_window(open_demo=False)
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    view = window.graph_view
    assert "group:model.fc" in view.nodes
    window.actions_by_id["view.unfold_all"].trigger()
    click_node(qtbot, window, "t:w")
    assert window.inspector.facts["grad"].startswith("[2., 4.]")


def test_a_syntax_error_is_underlined_and_the_window_keeps_working(qtbot, window):
    window.editor.setPlainText("import torch\nx = torch.ones(2\ny = 3\n")
    window.actions_by_id["debug.continue"].trigger()
    wait_idle(qtbot, window)
    assert window.editor.errors and window.editor.errors[0].line in (2, 3)
    assert any(e.kind == "error" for e in window.console.entries)
    window.editor.setPlainText("import torch\nx = torch.ones(2)\n")
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED
    assert not window.editor.errors


def test_console_lines_lead_to_the_editor_and_keys_reach_every_part(qtbot, window):
    from PySide6.QtCore import QUrl

    window.console.view.anchorClicked.emit(QUrl("line:7"))
    assert window.editor.cursor_line() == 7
    for part, widget in (("graph", window.graph_view.canvas), ("inspector", window.inspector.text),
                         ("console", window.console.view), ("editor", window.editor)):
        window.actions_by_id[f"view.focus_{part}"].trigger()
        assert widget.hasFocus(), part


def test_the_picked_tensor_is_picked_again_after_a_restart(qtbot, window):
    click_node(qtbot, window, "t:t2")
    trigger(qtbot, window, "debug.restart")  # paused before line 1: no tensors, nothing picked
    assert window.graph_view.selected_ids() == []
    trigger(qtbot, window, "debug.continue")  # back at the breakpoint: t2 is drawn again
    assert window.graph_view.selected_ids() == ["t:t2"]
    assert window.inspector.node_id == "t:t2"
    window.graph_view.scene.clearSelection()  # the user unpicks: it stays unpicked
    trigger(qtbot, window, "debug.restart")
    trigger(qtbot, window, "debug.continue")
    assert window.graph_view.selected_ids() == []
