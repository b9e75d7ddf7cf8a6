"""The panels' one event recorder per controller: ``PanelsHub`` and ``panels_hub``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from engine.session import events as ev
from engine.session import panels_model as pm

from .point import point_index


class PanelsHub(QObject):
    """One ``PanelsRecorder`` per controller, attached to the engine for the panels' lifetime.

    The recorder hears the engine on the session's worker thread; this object resets it when the
    session is replaced or restarts, and keeps the last event the session came to rest with.
    """

    def __init__(self, controller) -> None:
        super().__init__(controller if isinstance(controller, QObject) else None)
        self.controller = controller
        self.recorder = pm.PanelsRecorder().attach()
        self._unsubscribe_session: Callable[[], None] | None = None
        self._replay = None  # the session when it replays a recording
        self._users = 0
        self.rest_event = None  # the last Paused / Finished / Error event
        self.last_paused = None
        self.idle_event = ev.Reset()  # stands for "not started": panels draw nothing
        arrived = getattr(controller, "events_arrived", None)
        if arrived is not None:
            arrived.connect(self._events_arrived)
        replaced = getattr(controller, "session_replaced", None)
        if replaced is not None:
            replaced.connect(self._watch_session)
        self._watch_session(getattr(controller, "session", None))

    def _watch_session(self, session) -> None:
        if self._unsubscribe_session is not None:
            self._unsubscribe_session()
            self._unsubscribe_session = None
        self.recorder.reset()
        # Nothing of the previous script's pauses belongs to this one: a new script (or one that
        # fails before its first pause) shows empty panels, never the old script's names.
        self.rest_event = self.last_paused = None
        self.idle_event = ev.Reset()  # what panels draw before this session's first rest
        counters = getattr(session, "counters", None)
        self.recorder.backward_count = (
            (lambda: counters.backward) if counters is not None else None
        )
        # A replay has no engine events: its session tells the recorder what the panels show.
        self._replay = session if getattr(session, "is_recorded", False) else None
        if self._replay is not None and session.status != ev.Status.IDLE:
            self.recorder.show_replay(session.panels_feed())
        if session is not None and hasattr(session, "subscribe"):
            # runs on the worker thread, in order with the engine's own events
            self._unsubscribe_session = session.subscribe(self._on_session_event)

    def _on_session_event(self, event) -> None:
        if self._replay is not None:
            if isinstance(event, ev.AT_REST) or (isinstance(event, ev.Finished) and event.stopped):
                # at the point the event shows (the replay publishes as it moves there)
                self.recorder.show_replay(self._replay.panels_feed(point_index(event)))
            return
        match event:
            case ev.Reset():
                self.recorder.reset()
            case ev.Paused(travelled=True) | ev.Finished(travelled=True) | ev.Error(travelled=True):
                # travelled back before any backward(): the re-run has not told the recorder yet
                self.recorder.catch_up()

    def _events_arrived(self, batch: list) -> None:
        for event in batch:
            if isinstance(event, ev.AT_REST):
                self.rest_event = event
                if isinstance(event, ev.Paused):
                    self.last_paused = event
            elif isinstance(event, ev.Reset):
                self.rest_event = self.last_paused = None
                self.idle_event = event

    def select(self, name: str) -> None:
        """Ask the window to select ``name`` in the graph and the inspector."""
        select = getattr(self.controller, "select_tensor", None)
        if callable(select):
            select(name)

    def acquire(self) -> None:
        self._users += 1

    def release(self) -> None:
        self._users -= 1
        if self._users > 0:
            return
        self.recorder.detach()
        if self._unsubscribe_session is not None:
            self._unsubscribe_session()
            self._unsubscribe_session = None
        for name, slot in (("session_replaced", self._watch_session),
                           ("events_arrived", self._events_arrived)):
            signal = getattr(self.controller, name, None)
            try:
                if signal is not None:
                    signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass


def panels_hub(controller) -> PanelsHub:
    """The controller's ``PanelsHub``, made on first use."""
    hub = getattr(controller, "_gradstep_panels_hub", None)
    if hub is None or not hub.recorder.attached:
        hub = PanelsHub(controller)
        controller._gradstep_panels_hub = hub
    return hub
