"""Debug ▸ Previous Iteration (scenario 5): from the first NaN, back to the start of the
iteration before, then the Timeline compares the two points, loss and all."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence

from app.actions import ACTIONS, previous_iteration_point
from engine.session.timeline import TimelinePoint
from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import position, trigger, wait_idle

NAN_AT_37 = """\
import torch
torch.manual_seed(0)
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for it in range(50):
    opt.zero_grad()
    p = torch.sigmoid(w) * (1.0 if it != 37 else 0.0)
    loss = -torch.log(p).sum()
    loss.backward()
    opt.step()
print(w)
"""
FIRST_LINE_OF_THE_LOOP = 6


def _points(*rows):
    """``(iteration, kind)`` rows as a timeline."""
    return [TimelinePoint(index=i, kind=kind, line=1, iteration=it)
            for i, (it, kind) in enumerate(rows)]


def test_the_previous_iteration_is_the_run_of_points_before_this_ones():
    s = "statement"
    timeline = _points((None, s), (0, s), (0, s), (1, s), (1, "backward_step"), (1, s),
                       (None, s), (0, s), (0, s), (1, s), (None, "finished"))
    assert previous_iteration_point(timeline, 5) == 1  # mid-iteration 1: iteration 0's start
    assert previous_iteration_point(timeline, 3) == 1  # at iteration 1's start, too
    assert previous_iteration_point(timeline, 2) is None  # the first iteration
    assert previous_iteration_point(timeline, 0) is None  # before any loop
    assert previous_iteration_point(timeline, 6) == 3  # after the loop: its last iteration
    assert previous_iteration_point(timeline, 9) == 7  # a second loop counts from 0 again
    assert previous_iteration_point(timeline, 10) == 9  # the end of the run
    assert previous_iteration_point(timeline, 7) is None  # not into the first loop
    assert previous_iteration_point(timeline, None) is None
    starts_on_a_step = _points((0, s), (1, "backward_step"), (1, s), (2, s))
    assert previous_iteration_point(starts_on_a_step, 3) == 2  # a statement, as Next Iteration


def test_no_two_actions_share_a_shortcut():
    keys = [QKeySequence(spec.shortcut).toString() for spec in ACTIONS if spec.shortcut]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    assert {f"Ctrl+{n}" for n in range(1, 5)}.isdisjoint(keys)  # View ▸ Focus … takes those


@pytest.mark.parametrize("worker", ["0", "1"])
def test_back_one_iteration_from_the_nan_then_compare(qtbot, make_window, monkeypatch, worker):
    monkeypatch.setenv("GRADSTEP_WORKER", worker)
    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None, timeout=20000)
    wait_idle(qtbot, window)
    assert window.controller.use_worker == (worker == "1")
    paste_over_everything(window.editor, NAN_AT_37)
    wait_idle(qtbot, window)
    window.actions_by_id["debug.break_on_nan"].setChecked(True)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    at_nan = window.controller.current_point()
    assert position(window).iteration == 37

    trigger(qtbot, window, "debug.previous_iteration", timeout=60000)
    back = window.controller.current_point()
    assert position(window).iteration == 36 and position(window).line == FIRST_LINE_OF_THE_LOOP
    timeline = window.controller.snapshot.timeline
    assert timeline[back].iteration == 36 and timeline[back - 1].iteration == 35

    panel = window.panels["timeline"]
    rows = {(r.what, r.name): r for r in panel.compare(back, at_nan) if r.changed}
    assert {("tensor", "loss"), ("tensor", "p"), ("parameter", "w")} <= set(rows)
    assert rows["tensor", "loss"].summary.endswith("→ inf")
    shown = {(panel.table.item(i, 0).text(), panel.table.item(i, 1).text())
             for i in range(panel.table.rowCount())}
    assert shown == set(rows)  # only the changes are listed
    assert not any(panel.table.item(i, 2).text() == "None → None"
                   for i in range(panel.table.rowCount()))

    trigger(qtbot, window, "debug.previous_iteration", timeout=60000)
    assert position(window).iteration == 35  # and again, one more back
