"""The state a panel draws: ``PointView``, read at the point the session shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.session import events as ev
from engine.session.events import Status
from engine.session.state import Snapshot, capture, visible_names

if TYPE_CHECKING:  # pragma: no cover
    from .hub import PanelsHub

# When the script's names can be read safely.
PAUSED_STATES = (Status.PAUSED, Status.FINISHED, Status.FAILED)


def point_index(event: ev.SessionEvent) -> int | None:
    """The timeline index of a ``Paused`` / ``Finished`` / ``Error`` event."""
    match event:
        case ev.Paused(position=position) if getattr(position, "point_index", None) is not None:
            index = position.point_index
        case ev.Paused(point=point) | ev.Finished(point=point) | ev.Error(point=point):
            index = getattr(point, "index", None)
        case _:
            index = None
    return index if isinstance(index, int) else None


@dataclass
class PointView:
    """The state at the point the session shows (the latest pause or a point time travel chose)."""

    snapshot: Snapshot
    live: dict  # the script's names (display name -> object), read at the pause
    index: int | None  # timeline point index
    markers: frozenset  # what happened since the previous point (backward, zero_grad, step, ...)
    travelled: bool  # time travel chose this point (the script was re-run up to it)
    event: ev.SessionEvent  # the event it comes from: the same object means the same pause


def point_view(controller, hub: PanelsHub) -> PointView | None:
    """The state to draw, or None while the script runs (its names are not safe to read then)."""
    snap = getattr(controller, "snapshot", None)
    status = getattr(snap, "status", None)
    if snap is not None and status == Status.IDLE and hub.rest_event is None:
        # A new script (or a restart) that has not paused yet: every panel shows nothing,
        # never what the previous script or run left.
        idle = getattr(hub, "idle_event", None)
        if idle is None:
            return None
        return PointView(capture({}, None), {}, None, frozenset(), False, idle)
    if snap is None or status not in PAUSED_STATES:
        return None
    event = hub.rest_event or getattr(snap, "pause", None)
    if event is None:
        return None
    last = event if isinstance(event, ev.Paused) else hub.last_paused
    pause = last.pause if last is not None else None
    live = visible_names(getattr(pause, "globals", None), getattr(pause, "locals", None))
    snapshot = None
    match event:
        case ev.Finished(namespace=namespace, snapshot=snapshot) if namespace is not None:
            live = visible_names(namespace, None)
        case ev.Paused(snapshot=snapshot) | ev.Finished(snapshot=snapshot):
            pass
        case ev.Error(snapshot=snapshot):
            # The names where the script failed (the session keeps that frame), not those of
            # an earlier pause: a script failing before its optimizer exists shows none.
            session = getattr(controller, "session", None)
            names = getattr(session, "visible_names", None)
            if callable(names) and not getattr(controller, "busy", False):
                try:
                    live = names()
                except Exception:
                    pass
    if not isinstance(snapshot, Snapshot):
        snapshot = capture(live, None)
    point = event.point
    return PointView(snapshot, live, point_index(event),
                     frozenset(getattr(point, "markers", ()) or ()), bool(event.travelled), event)
