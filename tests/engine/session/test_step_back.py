"""Issue 16: continue records the statements it passes; stepping after time travel keeps the
points ahead (re-execution is exact), and a stop between two points is inserted there."""

from __future__ import annotations

import numpy as np

from engine.session import Session

from .scripts import SGD_LOOP

NAN_LOOP = """\
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for i in range(5):
    opt.zero_grad()
    x = w - 1.6 * i + 3.2
    loss = torch.log(x).sum()
    loss.backward()
    opt.step()
"""


def _w(s):
    return np.array(s.pause_state.globals["w"]._data)


def test_continue_to_a_breakpoint_records_every_statement_it_passed():
    s = Session(SGD_LOOP, breakpoints=[8])
    s.continue_()  # line 8 (opt.step()) of iteration 1
    lines = [p.line for p in s.timeline]
    assert lines == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [p.reason for p in s.timeline][-1] == "breakpoint at line 8"
    s.continue_()  # iteration 2
    assert [p.line for p in s.timeline][8:] == [5, 6, 7, 8]  # the for line pauses once
    assert s.timeline[-1].iteration == 1
    # One statement back: the state before loss.backward() of iteration 2, exactly.
    before = s.snapshot(len(s.timeline) - 2)
    s.go_to(len(s.timeline) - 2)
    assert s.position.line == 7
    np.testing.assert_array_equal(_w(s), before.tensors["w"].value)


def test_stepping_forward_after_going_back_keeps_the_points_ahead():
    s = Session(SGD_LOOP)
    s.continue_()
    points = [(p.raw_index, p.line, p.kind) for p in s.timeline]
    s.go_to(5)
    s.step_over()
    assert s.position.point_index == 6
    assert [(p.raw_index, p.line, p.kind) for p in s.timeline] == points
    s.step_over()
    assert s.position.point_index == 7


def test_a_stop_between_two_points_is_inserted_and_later_points_shift():
    s = Session(SGD_LOOP)
    for _ in range(8):
        s.step_over()  # ... to loss.backward() of iteration 1 (line 7), then opt.step()
    assert s.position.line == 8
    n = len(s.timeline)
    w_at_end = s.snapshot(n - 1).tensors["w"].grad
    s.go_to(n - 2)  # before loss.backward()
    s.step_into()  # into backward(): a point the first pass stepped over
    assert s.position.backward_step is not None
    assert s.position.point_index == n - 1
    assert len(s.timeline) == n + 1
    assert [p.index for p in s.timeline] == list(range(n + 1))
    assert s.timeline[n].line == 8
    np.testing.assert_array_equal(s.snapshot(n).tensors["w"].grad, w_at_end)


def test_after_f5_to_a_nan_the_user_steps_back_an_iteration():
    s = Session(NAN_LOOP)
    s.break_on_nan()
    s.continue_()
    assert "NaN/Inf" in s.timeline[s.position.point_index].reason
    nan_iteration = s.position.iteration
    assert nan_iteration >= 1
    here = s.position.point_index
    earlier = [p for p in s.timeline[:here]
               if p.iteration == nan_iteration - 1 and p.line == 7]
    assert earlier, "continue recorded the previous iteration's statements"
    s.go_to(earlier[-1].index)
    assert s.position.iteration == nan_iteration - 1
    assert np.isfinite(_w(s)).all()
