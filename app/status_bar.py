"""The status bar: what the session is doing, where it is, and the counters."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar

from engine.session.events import Status

_STATE_TEXT = {
    Status.IDLE: "Ready — F5 run · F10 step",
    Status.RUNNING: "Running…",
    Status.PAUSED: "Paused",
    Status.FINISHED: "Finished",
    Status.FAILED: "Error",
}
_STATE_COLOUR = {Status.RUNNING: "#1a7f37", Status.PAUSED: "#9a6700", Status.FAILED: "#d1242f"}


def position_text(position) -> str:
    """``line 9 · iteration 3 · backward step 2 of 5`` (only the parts that apply)."""
    if position is None:
        return ""
    parts = []
    if getattr(position, "line", None) is not None:
        parts.append(f"line {position.line}")
    if getattr(position, "iteration", None) is not None:
        parts.append(f"iteration {position.iteration + 1}")
    step = getattr(position, "backward_step", None)
    if step:
        what = "replay step" if getattr(position, "replay", False) else "backward step"
        parts.append(f"{what} {step[0]} of {step[1]}")
    return " · ".join(parts)


# Pauses a step command asked for: the status bar says so briefly; the banner stays quiet.
_ROUTINE = {"step": "stepped", "restart": "at the start", "time travel": "time travel",
            "iteration": "next iteration", "loop ended": "the loop ended",
            "paused": "paused by you"}


def is_routine(reason: str | None) -> bool:
    """A pause a step command made (not a breakpoint or a data breakpoint)."""
    if not reason:
        return True
    return (reason in _ROUTINE or reason.endswith(" iterations")
            or (reason.startswith("line ") and reason[5:].isdigit()))


def reason_text(reason: str | None) -> str:
    """Why the session paused, in the status bar's words (``""`` when it does not say)."""
    if not reason:
        return ""
    if reason in _ROUTINE:
        return _ROUTINE[reason]
    if reason.startswith("line ") and reason[5:].isdigit():
        return f"reached {reason}"
    return reason


def place_text(line, iteration) -> str:
    """``line 7 (iteration 12)``: where a run ended, the iteration counted from 1 as in
    ``position_text``; ``""`` without a line."""
    if line is None:
        return ""
    return f"line {line}" + (f" (iteration {iteration + 1})" if iteration is not None else "")


def stop_place(timeline) -> tuple[int | None, int | None]:
    """(line, iteration) of the last point a stopped run reached: where it stopped."""
    for point in reversed(timeline or ()):
        if getattr(point, "line", None) is not None:
            return point.line, point.iteration
    return None, None


def ended_text(snapshot) -> str | None:
    """The state of a run that ended at a line: ``Error at line 7 (iteration 4)``, ``Stopped
    at line 9 (iteration 12)``; None for any other state."""
    session_status = getattr(snapshot.session, "status", None)
    if snapshot.status == Status.FAILED and snapshot.error is not None:
        event = snapshot.error
        point = getattr(event, "point", None)
        line = getattr(event.error, "line", None) or getattr(point, "line", None)
        where = place_text(line, getattr(point, "iteration", None))
        return f"Error at {where}" if where else "Error"
    if snapshot.status == Status.FINISHED and session_status == Status.STOPPED:
        where = place_text(*stop_place(snapshot.timeline))
        return f"Stopped at {where}" if where else "Stopped"
    return None


def counters_text(counters) -> str:
    if counters is None:
        return ""
    return (f"backward {getattr(counters, 'backward', 0)} · "
            f"zero_grad {getattr(counters, 'zero_grad', 0)} · "
            f"step {getattr(counters, 'step', 0)}")


class DebugStatusBar(QStatusBar):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("statusBar")
        self.state = QLabel(self)
        self.state.setObjectName("statusState")
        self.position = QLabel(self)
        self.position.setObjectName("statusPosition")
        self.reason = QLabel(self)  # why it paused: a breakpoint, NaN/Inf in loss, ...
        self.reason.setObjectName("statusReason")
        self.counters = QLabel(self)
        self.counters.setObjectName("statusCounters")
        self.counters.setToolTip("How many times backward(), zero_grad() and optimizer.step() ran")
        self.stop_note: str | None = None  # "Stopped at line 3" after Stop ended a long call
        # a command is on its way to a script that has not started yet (a fresh worker takes a
        # moment): "Starting…", not "Ready" (QA: F5 looked dead, and was pressed again)
        self.busy = False
        self.addWidget(self.state)
        self.addWidget(self.position)
        self.addWidget(self.reason, 1)
        self.addWidget(self.counters)

    def show_busy(self, busy: bool, snapshot) -> None:
        """The controller's ``busy_changed``."""
        self.busy = busy
        self.show_snapshot(snapshot)

    def show_snapshot(self, snapshot) -> None:
        status = snapshot.status
        note = self.stop_note if status != Status.RUNNING else None
        starting = self.busy and status == Status.IDLE
        text = ended_text(snapshot) or note or (
            "Starting…" if starting else _STATE_TEXT.get(status, status))
        self.state.setText(text)
        colour = _STATE_COLOUR.get(Status.RUNNING if starting else status)
        self.state.setStyleSheet(f"color: {colour}" if colour else "")
        paused = status == Status.PAUSED
        self.position.setText(position_text(snapshot.position) if paused else "")
        pause = getattr(snapshot, "pause", None)
        reason = getattr(pause, "reason", None) if paused and pause is not None else None
        text = reason_text(reason)
        self.reason.setText(f"— {text}" if text else "")
        self.reason.setToolTip(f"Why it paused: {text}" if text else "")
        self.reason.setStyleSheet("" if is_routine(reason) else "color: #d1242f; font-weight: bold"
                                  if reason and ("NaN" in reason or "norm" in reason)
                                  else "font-weight: bold")
        self.counters.setText(counters_text(snapshot.counters))
        self.counters.setMinimumWidth(self.counters.sizeHint().width())
        if self.layout() is not None:
            self.layout().activate()  # now, not at the next layout pass: texts changed width
