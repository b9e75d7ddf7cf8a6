"""What a session tells its subscribers: ``SessionEvent`` and the ``Position`` it is paused at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

# The kinds of session event.
PAUSED = "paused"  # pause, diff, position, point, reason, snapshot, travelled
RUNNING = "running"  # command
FINISHED = "finished"  # namespace, diff, point, stopped
ERROR = "error"  # error (ScriptError), explanation, diff, point
OUTPUT = "output"  # text, line
WARNING = "warning"  # warning (LintWarning), line
TIMELINE_CHANGED = "timeline_changed"  # length
RESET = "reset"  # (nothing: the run starts over)

KINDS = (PAUSED, RUNNING, FINISHED, ERROR, OUTPUT, WARNING, TIMELINE_CHANGED, RESET)


class SessionEvent:
    """One event: ``kind`` and keyword fields, readable as attributes (``event.diff``).

    Parameters
    ----------
    kind : str
        One of ``paused``, ``running``, ``finished``, ``error``, ``output``, ``warning``,
        ``timeline_changed``, ``reset``.
    **fields
        The event's data (see the kinds above).
    """

    def __init__(self, kind: str, **fields: Any) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown session event kind {kind!r}")
        self.kind = kind
        self.fields = fields

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(f"{self.kind} event has no field {name!r}") from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def __repr__(self) -> str:
        return f"SessionEvent({self.kind!r}, {', '.join(sorted(self.fields))})"


@dataclass(frozen=True)
class Position:
    """Where a session is: line, iteration, backward step, depth, timeline point.

    Attributes
    ----------
    line : int or None
    iteration : int or None
        Iteration (from 0) of the outermost loop around the position.
    backward_step : tuple of (int, int) or None
        ``(k, n)``: paused after the k-th node (1-based) of a backward pass of n nodes.
    depth : int
        Call depth (0 = module level).
    point_index : int or None
        The timeline point this position is.
    """

    line: int | None
    iteration: int | None = None
    backward_step: tuple | None = None
    depth: int = 0
    point_index: int | None = None


class EventPublisher:
    """``subscribe(fn) -> unsubscribe`` and ``_send(kind, **fields)``: what a session and the
    recording player share for their views. The class sets ``self._subscribers = []``."""

    _subscribers: list

    def subscribe(self, fn: Callable[[SessionEvent], None]) -> Callable[[], None]:
        """Call ``fn(SessionEvent)`` for every event; returns a function that unsubscribes."""
        self._subscribers.append(fn)

        def unsubscribe() -> None:
            if fn in self._subscribers:
                self._subscribers.remove(fn)

        return unsubscribe

    def _send(self, kind: str, **fields: Any) -> None:
        event = SessionEvent(kind, **fields)
        for fn in tuple(self._subscribers):
            fn(event)
