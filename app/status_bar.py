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
        self.counters = QLabel(self)
        self.counters.setObjectName("statusCounters")
        self.counters.setToolTip("How many times backward(), zero_grad() and optimizer.step() ran")
        self.addWidget(self.state)
        self.addWidget(self.position, 1)
        self.addWidget(self.counters)

    def show_snapshot(self, snapshot) -> None:
        status = snapshot.status
        text = _STATE_TEXT.get(status, status)
        session_status = getattr(snapshot.session, "status", None)
        if status == Status.FINISHED and session_status == Status.STOPPED:
            text = "Stopped"
        self.state.setText(text)
        colour = _STATE_COLOUR.get(status)
        self.state.setStyleSheet(f"color: {colour}" if colour else "")
        self.position.setText(position_text(snapshot.position) if status == Status.PAUSED else "")
        self.counters.setText(counters_text(snapshot.counters))
        self.counters.setMinimumWidth(self.counters.sizeHint().width())
        if self.layout() is not None:
            self.layout().activate()  # now, not at the next layout pass: texts changed width
