"""What the window says after Stop: where the run was when it stopped.

A polite stop ends the run at a statement: the status bar reads the place from the timeline
(``status_bar.ended_text``) and the console feed writes it. A run stuck in one long C call
(``x @ x`` of a large matrix) cannot stop politely: its worker process is killed and a fresh one
re-executes to the point the user last saw, so no timeline point tells where it was. The line
it was on is read when Stop is pressed (the worker writes it at every statement), and said here.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from engine.session import events as ev
from engine.session.events import Status


def running_line(session) -> int | None:
    """The line a session's worker process is running now, None when not known (a session in
    this process has no worker to ask)."""
    ask = getattr(type(session), "running_line", None)
    return ask(session) if callable(ask) else None


def killed_text(line: int | None, back_at: int | None) -> str:
    """What the console says when Stop had to end the worker inside a call at ``line``; the
    fresh worker is back at line ``back_at`` (None: before the first statement)."""
    where = f" at line {line}" if line is not None else ""
    then = (f"back at line {back_at}, where the run last paused" if back_at is not None
            else "nothing ran before it: F5 runs the script again from the top")
    return f"Stopped{where}: the script was inside one long call, so its process was ended; {then}."


class StopReport(QObject):
    """Remembers where a running script was when the user pressed Stop, and says so when the
    stop needed the worker killed (``console.add`` a note, the status bar's ``stop_note``)."""

    def __init__(self, controller, console, status_bar) -> None:
        super().__init__(console)
        self.controller = controller
        self.console = console
        self.status_bar = status_bar
        self._asked: int | None | bool = False  # False: no stop pending; else the line
        controller.events_arrived.connect(self._events)
        controller.state_changed.connect(self._at_rest)
        controller.session_replaced.connect(self._forget)

    def requested(self) -> None:
        """The user pressed Stop (call before the controller stops the session)."""
        session = self.controller.session
        if session is not None and getattr(session, "busy", self.controller.busy):
            self._asked = running_line(session)

    def _forget(self, _session=None) -> None:
        self._asked = False
        self.status_bar.stop_note = None

    def _events(self, events) -> None:
        for event in events:
            if isinstance(event, ev.Running | ev.Reset):
                self.status_bar.stop_note = None  # a new command: the note was about the last
            elif isinstance(event, ev.Finished | ev.Error):
                self._asked = False  # the run ended at a statement: the timeline says where

    def _at_rest(self, snapshot) -> None:
        if self._asked is False or self.controller.busy:
            return
        line, self._asked = self._asked, False
        session_status = getattr(snapshot.session, "status", None)
        if session_status in (Status.STOPPED, Status.FINISHED, Status.FAILED):
            return
        # Killed: the fresh worker re-ran to the last point shown (or nothing ran yet).
        position = snapshot.position if snapshot.status == Status.PAUSED else None
        self.console.add("info", killed_text(line, getattr(position, "line", None)), line)
        self.status_bar.stop_note = f"Stopped at line {line}" if line is not None else "Stopped"
        self.status_bar.show_snapshot(snapshot)
