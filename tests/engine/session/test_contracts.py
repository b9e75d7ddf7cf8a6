"""The session's contracts with the views are plain, typed data (issue 13)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.files import DataBreakpoints
from engine.session import DebugSession, Session, Status
from engine.session import events as ev

SCRIPT = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
print("loss", y.item())
y.backward()
"""


def test_status_prints_and_compares_as_its_word():
    assert str(Status.FAILED) == "error" and f"{Status.PAUSED}" == "paused"
    assert Status.FINISHED == "finished" and json.dumps(Status.STOPPED) == '"stopped"'


def test_a_session_is_a_debug_session_with_declared_capabilities():
    s = Session(SCRIPT)
    assert isinstance(s, DebugSession)
    assert s.can_edit and not s.is_recorded
    assert s.status is Status.IDLE


def test_events_are_frozen_dataclasses_dispatched_by_type():
    s = Session(SCRIPT)
    seen = []
    s.subscribe(seen.append)
    s.step_into()
    s.continue_()
    assert all(dataclasses.is_dataclass(e) and isinstance(e, ev.SessionEvent) for e in seen)
    kinds = [type(e) for e in seen]
    assert kinds[0] is ev.Running and ev.Paused in kinds and ev.Output in kinds
    assert kinds[-2:] == [ev.Finished, ev.TimelineChanged]
    paused = next(e for e in seen if isinstance(e, ev.Paused))
    with pytest.raises(dataclasses.FrozenInstanceError):
        paused.reason = "x"
    assert s.status is Status.FINISHED
    s.go_to(0)
    assert isinstance(seen[-1], ev.Paused) and seen[-1].travelled


def test_one_data_breakpoint_type_set_as_a_copy():
    s = Session(SCRIPT)
    spec = DataBreakpoints(on_backward=True)
    s.set_data_breakpoints(spec)
    spec.on_backward = False  # the session kept its own copy
    assert s.data_breakpoints == DataBreakpoints(on_backward=True)
    reasons = []
    s.subscribe(lambda e: reasons.append(e.reason) if isinstance(e, ev.Paused) else None)
    s.continue_()
    assert reasons == ["backward()"]
    s.break_on_backward(False)
    assert not s.data_breakpoints.on_backward


def test_the_recording_player_declares_itself_and_has_every_command():
    from engine.record.player import RecordedSession

    assert not RecordedSession.can_edit and RecordedSession.is_recorded
    for name in ("continue_", "run_to_end", "step_over", "step_into", "step_out", "run_to_line",
                 "next_iteration", "run_iterations", "restart", "go_to", "pause", "stop",
                 "set_breakpoint", "clear_breakpoint", "set_data_breakpoints", "subscribe",
                 "graph", "snapshot", "visible_names", "module_names", "console_at"):
        assert callable(getattr(RecordedSession, name)), name
