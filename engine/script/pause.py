"""``Pause`` and ``Frame``: what the stepping interpreter yields, and its call-stack entries."""

from __future__ import annotations

from typing import NamedTuple


class Frame(NamedTuple):
    """One call-stack entry: the function's name (``<module>`` at the top) and its current line."""

    name: str
    line: int


class Pause:
    """A point where the running script is suspended.

    Attributes
    ----------
    kind : str
        ``"statement"`` (before a statement runs) or ``"backward_step"`` (after a node of a
        ``backward()`` ran; ``step`` is the engine's ``BackwardStep``).
    line, col, end_line, end_col : int
        The statement's span (for a backward step, the span of the statement calling backward).
    depth : int
        Call depth, 0 at module level.
    stack : tuple of Frame
        The call stack, outermost first; the last entry is the running frame.
    locals, globals : dict
        The running frame's names and the module namespace (live, not copies).
    stmt : ast.stmt
        The statement about to run (or running ``backward()``).
    step : BackwardStep or None
    loop_iterations : tuple of (int, int)
        ``(loop line, iteration index)`` for each enclosing ``for``/``while`` loop of every frame,
        outermost first; the index counts from 0.

    Notes
    -----
    A pause is made before every statement, and most are skipped unread, so it only stores what is
    immutable or live anyway: the statement, the running frame (whose depth, outer call-stack
    entries and locals dict never change while it runs) and the loop counters' tuple. ``stack``,
    ``depth``, ``locals`` and the span are read from those when asked. The interpreter fills the
    slots through ``__init__``, positionally.
    """

    __slots__ = ("kind", "stmt", "step", "globals", "loop_iterations", "_frame")

    def __init__(self, kind, stmt, frame, globals, loop_iterations, step=None):
        self.kind = kind
        self.stmt = stmt
        self.step = step
        self.globals = globals
        self.loop_iterations = loop_iterations
        self._frame = frame  # the running Activation

    @property
    def depth(self) -> int:
        return self._frame.depth

    @property
    def stack(self) -> tuple:
        return self._frame.frames + (self.stmt.gs_frame,)

    @property
    def locals(self) -> dict:
        return self._frame.locals

    # the span is read from the statement when asked: most pauses are skipped unread
    @property
    def line(self) -> int:
        return self.stmt.lineno

    @property
    def col(self) -> int:
        return self.stmt.col_offset

    @property
    def end_line(self) -> int:
        return self.stmt.end_lineno

    @property
    def end_col(self) -> int:
        return self.stmt.end_col_offset

    def __repr__(self) -> str:
        extra = f", step={self.step!r}" if self.step is not None else ""
        return f"Pause({self.kind!r}, line={self.line}, depth={self.depth}{extra})"
