"""``DebugSession``: what the window (and the CLI) may ask of a debugging session.

Two classes implement it: ``engine.session.Session`` (a script run by the interpreter) and
``engine.record.player.RecordedSession`` (a file recorded from PyTorch, replayed). The window
drives either through this interface only; capabilities are declared attributes, never probed.
Everything a view receives from it is a typed event (``engine.session.events``), a ``Snapshot``,
a graph model or a ``Status``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..files.format import DataBreakpoints
from .events import Position, SessionEvent, Status


@runtime_checkable
class DebugSession(Protocol):
    """A session the window can drive.

    Attributes
    ----------
    can_edit : bool
        The session runs a script the builder may append lines to (False for a recording).
    is_recorded : bool
        The session replays a recording: its ``graph()`` is the recorded graph, not built from
        live names.
    status : Status
        ``IDLE``, ``PAUSED``, ``FINISHED``, ``FAILED`` or ``STOPPED`` (never ``RUNNING``).
    source : str
        The script ("" for a recording).
    data_breakpoints : DataBreakpoints
        What it stops on (``set_data_breakpoints`` replaces it).
    """

    can_edit: bool
    is_recorded: bool
    status: Status
    source: str
    timeline: Any
    counters: Any
    breakpoints: dict
    data_breakpoints: DataBreakpoints
    losses: list
    console: list
    error: Any
    explanation: Any
    namespace: dict | None

    # -- events
    def subscribe(self, fn: Callable[[SessionEvent], None]) -> Callable[[], None]: ...

    # -- commands: each runs synchronously until the next pause, on one thread at a time
    def continue_(self) -> Any: ...
    def run_to_end(self) -> Any: ...
    def step_over(self) -> Any: ...
    def step_into(self) -> Any: ...
    def step_out(self) -> Any: ...
    def run_to_line(self, line: int) -> Any: ...
    def next_iteration(self) -> Any: ...
    def run_iterations(self, n: int, progress: Callable[[int, int], None] | None = None): ...
    def restart(self) -> Any: ...
    def go_to(self, point_index: int) -> Any: ...

    # -- thread-safe controls
    def pause(self) -> None: ...
    def stop(self) -> None: ...

    # -- breakpoints: plain data, safe to set while a command runs
    def set_breakpoint(self, line: int, condition: str | None = None) -> Any: ...
    def clear_breakpoint(self, line: int) -> None: ...
    def set_data_breakpoints(self, spec: DataBreakpoints) -> None: ...

    # -- reading the state at rest
    @property
    def position(self) -> Position | None: ...
    @property
    def pause_state(self) -> Any: ...
    @property
    def warnings(self) -> list: ...
    @property
    def last_backward_steps(self) -> tuple: ...
    def graph(self, previous=None): ...
    def snapshot(self, point_index: int | None = None): ...
    def visible_names(self) -> dict: ...
    def module_names(self) -> dict: ...
    def console_at(self, point_index: int) -> list[str]: ...
