"""The panels' one event recorder per controller: ``PanelsHub`` and ``panels_hub``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from engine.session import events as ev
from engine.session import panels_model as pm

from .point import point_index


class PanelsHub(QObject):
    """The ``PanelsRecorder`` the panels read, and the last event the session came to rest with.

    A script in the worker process (``runs_in_worker``) has its recorder there, next to the
    session: the panels read the one its ``RemoteSession`` keeps (``session.panels``: what the
    worker told, as plain data). A session in this process (``GRADSTEP_WORKER=0``, a recording's
    replay) has this hub's own recorder, attached to the engine while such a session is watched:
    it hears the engine on the controller's thread, and this object resets it when the session is
    replaced or restarts. With a worker session it is detached, so the window's engine has no
    listener (its event sites stay free). Either way the panels read the same model objects.
    """

    def __init__(self, controller) -> None:
        super().__init__(controller if isinstance(controller, QObject) else None)
        self.controller = controller
        self.own_recorder = pm.PanelsRecorder()
        self.closed = False  # the last panel released it: the next panel makes a new hub
        self._told: pm.PanelsRecorder | None = None  # a worker session's
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
        self.own_recorder.reset()
        # Nothing of the previous script's pauses belongs to this one: a new script (or one that
        # fails before its first pause) shows empty panels, never the old script's names.
        self.rest_event = self.last_paused = None
        self.idle_event = ev.Reset()  # what panels draw before this session's first rest
        self._told = session.panels if getattr(session, "runs_in_worker", False) else None
        if self._told is None:
            self.own_recorder.attach()
        else:
            self.own_recorder.detach()
        counters = getattr(session, "counters", None)
        self.own_recorder.backward_count = (
            (lambda: counters.backward) if counters is not None else None
        )
        # A replay has no engine events: its session tells the recorder what the panels show.
        self._replay = session if getattr(session, "is_recorded", False) else None
        if self._replay is not None and session.status != ev.Status.IDLE:
            self.own_recorder.show_replay(session.panels_feed())
        if session is not None and hasattr(session, "subscribe") and self._told is None:
            # runs on the controller's thread, in order with the engine's own events
            self._unsubscribe_session = session.subscribe(self._on_session_event)

    @property
    def recorder(self) -> pm.PanelsRecorder:
        """The recorder the panels read now (the worker's, as told, or this process's)."""
        return self._told if self._told is not None else self.own_recorder

    def _on_session_event(self, event) -> None:
        if self._replay is not None:
            if isinstance(event, ev.AT_REST) or (isinstance(event, ev.Finished) and event.stopped):
                # at the point the event shows (the replay publishes as it moves there)
                self.own_recorder.show_replay(self._replay.panels_feed(point_index(event)))
            return
        self.own_recorder.follow(event)

    def predictions(self, stmt, live) -> list:
        """The predict panel's questions before ``stmt``: as the worker asked them of the live
        names there, or asked here of ``live``."""
        told = self.recorder.predictions
        if told is None or stmt is None:
            return pm.predictions(stmt, live)
        return list(told)

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
        self.closed = True
        self.own_recorder.detach()
        self._told = None
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
    if hub is None or hub.closed:
        hub = PanelsHub(controller)
        controller._gradstep_panels_hub = hub
    return hub
