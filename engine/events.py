"""One small hub through which the engine reports what it does.

The engine calls ``hub.emit(...)`` only behind ``if hub.active:``, so with nobody listening the
cost is one attribute read per event site. Listeners are plain callables ``fn(event)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# The kinds of event the engine emits.
OP_RECORDED = "op_recorded"  # payload: node, output tensor
BACKWARD_STARTED = "backward_started"  # payload: roots
BACKWARD_STEP = "backward_step"  # payload: BackwardStep
BACKWARD_FINISHED = "backward_finished"  # payload: roots
GRAD_ACCUMULATED = "grad_accumulated"  # payload: tensor, contribution array
GRAD_ZEROED = "grad_zeroed"  # payload: tensor, set_to_none
PARAM_UPDATED = "param_updated"  # payload: tensor, optimizer, before array
OPTIMIZER_STATE_CHANGED = "optimizer_state_changed"  # payload: optimizer, param


@dataclass(frozen=True)
class Event:
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)


class EventHub:
    """Fan-out of engine events to subscribed listeners."""

    __slots__ = ("_listeners", "active")

    def __init__(self) -> None:
        self._listeners: list[Callable[[Event], None]] = []
        self.active = False

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Add ``listener``; returns a function that removes it again."""
        self._listeners.append(listener)
        self.active = True

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            self.active = bool(self._listeners)

        return unsubscribe

    @contextlib.contextmanager
    def muted(self) -> Iterator[None]:
        """Emit nothing inside: the palette's dry runs of an op must not reach the panels.

        Not thread-safe: use it only while no script runs (the builder is disabled then).
        """
        self.active = False
        try:
            yield
        finally:
            self.active = bool(self._listeners)

    def emit(self, kind: str, **payload: Any) -> None:
        event = Event(kind, payload)
        for listener in tuple(self._listeners):
            listener(event)


hub = EventHub()
