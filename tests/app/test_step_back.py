"""Issue 16 journeys (real widgets): the graph and panels show one moment, every pause says why,
and Step Back / Step Back Into travel back through the timeline with the values seen forward."""

from __future__ import annotations

import numpy as np
import pytest

from engine.session.events import Status
from tests.app.test_document_state import paste_over_everything
from tests.app.test_screenshots import EXAMPLES
from tests.app.window_support import position, status, trigger, wait_idle

TRAINING = """\
import torch
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(4, 3)
y = torch.randn(4, 2)
for i in range(5):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
"""
STEP_LINE = 11  # opt.step(): paused before it, the grads of this iteration are in


@pytest.fixture
def window(qtbot, make_window):
    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None and bool(window.panels))
    wait_idle(qtbot, window)
    return window


def load(qtbot, window, source: str, breakpoints=()) -> None:
    paste_over_everything(window.editor, source)
    wait_idle(qtbot, window)
    for line in breakpoints:
        window.editor.toggle_breakpoint(line)


def headless_pauses(source: str, line: int, n: int):
    """What the engine's own session shows at each of ``n`` stops at ``line``."""
    from engine.session import Session

    s = Session(source, breakpoints=[line])
    out = []
    for _ in range(n):
        s.continue_()
        g = s.graph()
        edges = {(g.nodes[a].get("label"), g.nodes[b].get("label")): d.get("grad")
                 for a, b, d in g.edges(data=True)}
        opt = s.pause_state.globals["opt"]
        params = {"model.weight": s.pause_state.globals["model"].weight,
                  "model.bias": s.pause_state.globals["model"].bias}
        momentum = {name: (np.array(opt.state[p]["momentum_buffer"]._data)
                           if p in opt.state and "momentum_buffer" in opt.state[p] else None)
                    for name, p in params.items()}
        grads = {name: np.array(p.grad._data) for name, p in params.items()}
        out.append((s.position.iteration, edges, grads, momentum))
    return out


def edge_label(window, source_label: str, target_label: str) -> str:
    view = window.graph_view
    for (a, b), edge in view.edges.items():
        if (view.nodes[a].attrs.get("label"), view.nodes[b].attrs.get("label")) == \
                (source_label, target_label):
            return edge.label
    raise AssertionError(f"no edge {source_label} → {target_label}")


def test_edge_labels_and_panels_match_the_current_iteration(qtbot, window):
    from app.graph_items import EdgeItem

    expected = headless_pauses(TRAINING, STEP_LINE, 5)
    load(qtbot, window, TRAINING, [STEP_LINE])
    buffers, optimizer = window.panels["buffers"], window.panels["optimizer"]
    for iteration, edges, grads, momentum in expected:
        trigger(qtbot, window, "debug.continue")
        assert position(window).line == STEP_LINE
        assert position(window).iteration == iteration
        assert window.status.position.text().startswith(f"line {STEP_LINE} · "
                                                       f"iteration {iteration + 1}")
        for pair in (("AccumulateGrad", "TBackward0"), ("AccumulateGrad", "AddmmBackward0"),
                     ("TBackward0", "AddmmBackward0")):
            want = EdgeItem._format_label({"grad": edges[pair], "count": 1})
            assert edge_label(window, *pair) == want, (iteration, pair)
        for name, grad in grads.items():
            np.testing.assert_array_equal(buffers.row(name).grad, grad)
            row = optimizer.param(name)
            state = dict(row.state)
            if momentum[name] is None:
                assert "momentum_buffer" not in state
            else:
                np.testing.assert_array_equal(np.asarray(state["momentum_buffer"]),
                                              momentum[name])


def test_a_new_script_clears_every_panel(qtbot, window):
    load(qtbot, window, TRAINING, [STEP_LINE])
    trigger(qtbot, window, "debug.continue")
    assert window.panels["optimizer"].groups
    assert window.panels["buffers"].rows
    # A script that fails before it makes an optimizer.
    load(qtbot, window, "import torch\nw = torch.ones(2, requires_grad=True)\n"
                        "z = undefined_name * w\n")
    assert not window.panels["optimizer"].groups
    assert not window.panels["buffers"].rows
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FAILED
    assert not window.panels["optimizer"].groups
    assert window.panels["optimizer"].status.text() == "no optimizer in the script yet"
    points = window.panels["timeline"].points  # the new script's only: lines 1 to 3
    assert points and all(p.line <= 3 for p in points) and points[-1].kind == "error"


def test_the_nan_pause_names_the_op_and_selects_it(qtbot, window):
    assert window.open_example(str(EXAMPLES / "14_nan_from_log0.gstep"))
    wait_idle(qtbot, window)
    assert window.actions_by_id["debug.break_on_nan"].isChecked()
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.PAUSED
    reason = window.controller.snapshot.pause.reason
    assert "LogBackward0" in reason
    assert "LogBackward0" in window.status.reason.text()
    assert window.note_banner.isVisible()
    assert "Paused at line" in window.note_banner.text()
    assert "LogBackward0" in window.note_banner.text()
    picked = window.graph_view.selected_id()
    assert window.graph_view.nodes[picked].attrs.get("label") == "LogBackward0"
    # A plain step says so briefly, and the banner shows only the line's note.
    trigger(qtbot, window, "debug.step_over")
    assert "Paused at line" not in window.note_banner.text() or "NaN" in \
        window.controller.snapshot.pause.reason


def test_a_breakpoint_pause_says_so(qtbot, window):
    load(qtbot, window, TRAINING, [STEP_LINE])
    trigger(qtbot, window, "debug.continue")
    assert window.status.reason.text() == f"— breakpoint at line {STEP_LINE}"
    assert f"breakpoint at line {STEP_LINE}" in window.note_banner.text()
    trigger(qtbot, window, "debug.step_over")
    assert window.status.reason.text() == "— stepped"
    assert not window.note_banner.isVisible()


def test_step_back_returns_to_the_previous_statement_and_backward_step(qtbot, window):
    load(qtbot, window, TRAINING, [10])  # loss.backward()
    trigger(qtbot, window, "debug.continue")
    trigger(qtbot, window, "debug.continue")  # iteration 2, before loss.backward()
    assert (position(window).line, position(window).iteration) == (10, 1)
    seen = []  # (position, edge label, buffer grad) on the way forward
    for _ in range(3):
        trigger(qtbot, window, "debug.step_into")
        assert position(window).backward_step is not None
        seen.append((position(window), edge_label(window, "AccumulateGrad", "AddmmBackward0"),
                     window.panels["buffers"].row("model.bias").grad))
    length = len(window.controller.snapshot.timeline)
    # Step Back Into: one backward step back, the same values as on the way forward.
    for want in reversed(seen[:-1]):
        trigger(qtbot, window, "debug.step_back_into")
        here = position(window)
        assert (here.line, here.iteration, here.backward_step) == \
            (want[0].line, want[0].iteration, want[0].backward_step)
        assert edge_label(window, "AccumulateGrad", "AddmmBackward0") == want[1]
        got = window.panels["buffers"].row("model.bias").grad
        assert (got is None and want[2] is None) or np.array_equal(got, want[2])
    # Step Back: past the backward steps to the statement before them.
    trigger(qtbot, window, "debug.step_back")
    assert (position(window).line, position(window).iteration) == (10, 1)
    assert position(window).backward_step is None
    # Before this iteration's backward: no edge shows the previous backward's gradient (the
    # leaves' AccumulateGrad nodes outlive it), as their .grad buffers are None.
    view = window.graph_view
    into_accumulators = [e.label for (a, b), e in view.edges.items()
                         if view.nodes[b].attrs.get("label") == "AccumulateGrad"]
    assert into_accumulators and all(label == "" for label in into_accumulators)
    assert window.panels["buffers"].row("model.bias").grad is None
    trigger(qtbot, window, "debug.step_back")
    assert (position(window).line, position(window).iteration) == (9, 1)
    # Stepping forward again drops nothing of what lay ahead.
    trigger(qtbot, window, "debug.step_over")
    assert position(window).line == 10
    assert len(window.controller.snapshot.timeline) == length
    # The timeline panel counts iterations as the status bar does: from 1.
    assert "iteration 2" in window.panels["timeline"].where.text()
    assert "iteration 2" in window.status.position.text()


def test_after_f5_to_a_nan_step_back_goes_to_the_previous_iteration(qtbot, window):
    source = ("import torch\n"
              "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
              "for i in range(5):\n"
              "    x = w - 1.6 * i + 3.2\n"
              "    loss = torch.log(x).sum()\n"
              "    loss.backward()\n")
    load(qtbot, window, source)
    window.actions_by_id["debug.break_on_nan"].setChecked(True)
    trigger(qtbot, window, "debug.continue")
    here = position(window)
    assert "NaN/Inf" in window.status.reason.text()
    assert here.iteration >= 1
    trigger(qtbot, window, "debug.step_back")
    while position(window).iteration == here.iteration:
        trigger(qtbot, window, "debug.step_back")
    assert position(window).iteration == here.iteration - 1
    assert status(window) == Status.PAUSED
