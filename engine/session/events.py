"""What a session tells its subscribers: one frozen dataclass per event, the ``Status`` a session
is in and the ``Position`` it is paused at.

Subscribers dispatch on the event's type (``match event: case Paused(): ...``). The events carry
plain data where they can (``Position``, ``TimelinePoint``, ``StateDiff``, ``Snapshot``, strings);
``Paused.pause`` and ``Finished.namespace`` are the interpreter's live objects, read only while
the session is at rest. ``kind`` (a class attribute) names each type in a trace file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar


class Status(StrEnum):
    """Where a session (or the window's view of it) is. Values print as plain words."""

    IDLE = "idle"  # loaded, not started
    RUNNING = "running"  # a command is running (the window's view only)
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "error"
    STOPPED = "stopped"  # ended by stop()


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


@dataclass(frozen=True)
class SessionEvent:
    """Base of every session event."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class Paused(SessionEvent):
    """A command came to rest at ``position``. After ``go_to``, ``travelled`` is True and
    ``diff.full`` is True: redraw everything. ``culprits``: what a data breakpoint found at
    fault, as ``("op", "LogBackward0")`` (the node that produced a NaN/Inf, by name) and
    ``("tensor", "loss")`` / ``("grad", "w")`` (a named tensor or its ``.grad``); empty for
    line breakpoints and step commands."""

    kind: ClassVar[str] = "paused"
    pause: Any  # the interpreter's Pause (a recording's ReplayPause)
    diff: Any  # StateDiff since the last rest
    position: Position
    point: Any  # TimelinePoint
    reason: str | None
    snapshot: Any  # Snapshot
    travelled: bool = False
    culprits: tuple = ()


@dataclass(frozen=True)
class Running(SessionEvent):
    """A command started."""

    kind: ClassVar[str] = "running"
    command: str  # its name: "step_over", "continue_", ...


@dataclass(frozen=True)
class Finished(SessionEvent):
    """The script ended (``stopped``: by ``stop()``, then ``diff``, ``point`` and ``snapshot``
    are None; a worker's fills in ``snapshot``). ``snapshot``: the state at the end."""

    kind: ClassVar[str] = "finished"
    namespace: dict | None
    diff: Any
    point: Any
    stopped: bool = False
    travelled: bool = False
    snapshot: Any = None


@dataclass(frozen=True)
class Error(SessionEvent):
    """The script failed: ``error`` (ScriptError) and its ``explanation``; ``snapshot`` is the
    state where it failed (None when the script's process died)."""

    kind: ClassVar[str] = "error"
    error: Any  # ScriptError (engine.session.wire.ErrorInfo on the wire)
    explanation: Any  # Explanation or None
    diff: Any  # StateDiff since the last rest
    point: Any  # TimelinePoint
    travelled: bool = False
    snapshot: Any = None  # Snapshot


@dataclass(frozen=True)
class Output(SessionEvent):
    """The script printed ``text`` on ``line``."""

    kind: ClassVar[str] = "output"
    text: str
    line: int | None


@dataclass(frozen=True)
class Warning(SessionEvent):  # read as ``events.Warning``: the builtin stays unshadowed elsewhere
    """A ``LintWarning`` on ``line``."""

    kind: ClassVar[str] = "warning"
    warning: Any
    line: int | None


@dataclass(frozen=True)
class TimelineChanged(SessionEvent):
    """The timeline now has ``length`` points."""

    kind: ClassVar[str] = "timeline_changed"
    length: int


@dataclass(frozen=True)
class FiguresChanged(SessionEvent):
    """What the script's ``matplotlib.pyplot`` has shown so far: ``figures`` is a tuple of
    ``engine.plots.Figure`` (plain data), published at ``plt.show()`` (and ``savefig``,
    ``pause``) on ``line``, and at the end of the run (``line`` None) with the figures left
    open; after time travel, those of the point travelled to."""

    kind: ClassVar[str] = "figures_changed"
    figures: tuple
    line: int | None = None


@dataclass(frozen=True)
class Reset(SessionEvent):
    """The run starts over: forget everything it published."""

    kind: ClassVar[str] = "reset"


AT_REST = (Paused, Finished, Error)  # events after which the script's names can be read


class EventPublisher:
    """``subscribe(fn) -> unsubscribe`` and ``_send(event)``: what a session and the recording
    player share for their views. The class sets ``self._subscribers = []``."""

    _subscribers: list

    def subscribe(self, fn: Callable[[SessionEvent], None]) -> Callable[[], None]:
        """Call ``fn(event)`` for every event; returns a function that unsubscribes."""
        self._subscribers.append(fn)

        def unsubscribe() -> None:
            if fn in self._subscribers:
                self._subscribers.remove(fn)

        return unsubscribe

    def _send(self, event: SessionEvent) -> None:
        for fn in tuple(self._subscribers):
            fn(event)
