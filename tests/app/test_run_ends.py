"""How a run's end is shown (issue 16's follow-ups): a runtime error at its node, in the
inspector and as ``Error at line N (iteration K)``; Stop names where the script was, also when
a long call had to be killed; the inspector and the status bar count a backward pass alike.
The session's own error and timeline are the oracle."""

from __future__ import annotations

import pytest

from engine.session.events import Status
from tests.app.test_console_moment import window  # noqa: F401  (worker and in-process)
from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import position, status, trigger, wait_idle

RUNTIME_MID = """\
import torch
x = torch.ones(3, requires_grad=True)
for i in range(5):
    y = (x * i).sum()
    if i == 3:
        y = y + torch.ones(2)
    y.backward()
print(x.grad)
"""

INPLACE = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
y.add_(1)
loss = y.sum()
loss.backward()
"""

SHAPES = """\
import torch
a = torch.ones(2, 3, requires_grad=True)
c = a * 2
b = c @ c
"""


def run(qtbot, window, source: str) -> None:
    paste_over_everything(window.editor, source)
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue")


def the_error(window):
    error = window.controller.snapshot.error
    assert status(window) == Status.FAILED and error is not None
    return error


@pytest.mark.parametrize("source, node_label", [
    (RUNTIME_MID, "y"),  # y.backward() of a 2-element y: the tensor the line reads
    (INPLACE, "ExpBackward0"),  # the node backward was about to run when its saved y was stale
    (SHAPES, "c"),  # c @ c: its operand
])
def test_a_runtime_error_selects_its_node_and_fills_the_inspector(qtbot, window, source,
                                                                 node_label):
    run(qtbot, window, source)
    error = the_error(window)
    qtbot.waitUntil(lambda: window.graph_view.selected_id() is not None)
    node = window.graph_view.selected_id()
    assert window.graph_view.shown_graph.nodes[node].get("label") == node_label
    assert window.inspector.node_id == node and window.inspector.facts
    point = error.point
    where = f"line {error.error.line}" + (f" (iteration {point.iteration + 1})"
                                          if point.iteration is not None else "")
    assert window.status.state.text() == f"Error at {where}"


def test_the_error_in_a_loop_names_its_iteration(qtbot, window):
    run(qtbot, window, RUNTIME_MID)
    error = the_error(window)
    # i == 3 is the loop's fourth pass: counted from 1, as the status bar counts while paused
    assert (error.error.line, error.point.iteration) == (7, 3)
    assert window.status.state.text() == "Error at line 7 (iteration 4)"


STEPS = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 3).exp().sum()
y.backward()
z = 1
"""


def test_inspector_and_status_bar_count_the_backward_steps_alike(qtbot, window):
    paste_over_everything(window.editor, STEPS)
    wait_idle(qtbot, window)
    window.editor.toggle_breakpoint(4)
    trigger(qtbot, window, "debug.continue")
    seen = 0
    while status(window) == Status.PAUSED and position(window).line == 4:
        trigger(qtbot, window, "debug.step_into")
        step = position(window).backward_step
        if not step:
            continue
        seen += 1
        graph = window.graph_view.shown_graph
        ran = max((n for n, a in graph.nodes(data=True) if a.get("executed_index") is not None),
                  key=lambda n: graph.nodes[n]["executed_index"])
        window.show_in_inspector(ran)
        assert window.inspector.facts["last backward"] == f"ran as step {step[0]} of {step[1]}"
        assert f"backward step {step[0]} of {step[1]}" in window.status.position.text()
    assert seen >= 3


PRINTS = """\
import torch
x = torch.ones(2, requires_grad=True)
print("first")
y = (x * 2).sum()
print("second", y.item())
"""


def test_stop_during_one_long_call_names_the_line_it_was_on(monkeypatch, qtbot, make_window):
    monkeypatch.setenv("GRADSTEP_WORKER", "1")
    monkeypatch.setenv("GRADSTEP_WORKER_TEST_HOOKS", "1")
    from engine.session.worker import SPARES, shutdown_spares

    window = make_window(open_demo=False)
    try:
        paste_over_everything(window.editor, PRINTS)
        wait_idle(qtbot, window)
        window.editor.toggle_breakpoint(5)
        trigger(qtbot, window, "debug.continue")
        assert position(window).line == 5
        c = window.controller
        assert SPARES.wait_ready()
        c.call("_test_hang")  # one C call that never returns: only a kill stops it
        qtbot.waitUntil(lambda: c.session.busy, timeout=5000)
        at = c.session._proc.line()  # the line the worker's page says it is on
        assert at is not None
        window.actions_by_id["debug.stop"].trigger()
        wait_idle(qtbot, window)
        qtbot.waitUntil(lambda: window.status.state.text() == f"Stopped at line {at}")
        notes = [e for e in window.console.entries if e.kind == "info" and not e.run]
        assert notes and notes[-1].text.startswith(f"Stopped at line {at}: ")
        assert notes[-1].line == at
        assert position(window).line == 5  # back where the user was
        trigger(qtbot, window, "debug.step_over")  # a new command: the note was about the last
        assert not window.status.state.text().startswith("Stopped")
    finally:
        window.controller.shutdown()
        shutdown_spares()


def test_stop_at_a_pause_names_the_line(qtbot, window):
    paste_over_everything(window.editor, PRINTS)
    wait_idle(qtbot, window)
    window.editor.toggle_breakpoint(4)
    trigger(qtbot, window, "debug.continue")
    trigger(qtbot, window, "debug.stop")
    qtbot.waitUntil(lambda: window.console.text().endswith("Stopped at line 4."))
    assert window.status.state.text() == "Stopped at line 4"
