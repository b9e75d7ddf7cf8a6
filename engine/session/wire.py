"""The wire format between the script's worker process and the window: events as plain data.

A session event (``engine.session.events``) carries live objects where it can afford to in one
process: ``Paused.pause`` is the interpreter's ``Pause`` (live frames, the running statement),
``Paused.diff.backward_steps`` hold the engine's ``BackwardStep`` nodes, ``Error.error`` is a
``ScriptError`` whose ``__cause__`` is the engine's exception, ``Finished.namespace`` is the
module's namespace. ``to_wire(event)`` gives the same event type with those replaced by plain
data (``PauseInfo``, ``StepInfo``, ``ErrorInfo``; no namespace), so it pickles with nothing of
the engine inside: builtins, numpy arrays and frozen dataclasses of those (``Snapshot``,
``TensorRecord``, ``StateDiff``, ``TimelinePoint``, ``Position``, ``LintWarning``,
``Explanation``). ``from_wire(event)`` turns ``ErrorInfo`` back into a ``ScriptError`` with a
cause of the same type name and message, which is what the console shows.

What the views read of a pause is kept: kind, line and span, depth, the call stack (as
``(name, line)`` pairs), loop iterations, the backward step's index and node name, and the
statement (``PauseInfo.stmt`` parses the statement's text on first use). The live names are not
sent: ``PauseInfo.globals`` and ``locals`` are empty (the views draw the ``Snapshot``).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

import numpy as np

from . import events as ev


@dataclass(frozen=True)
class NodeName:
    """A backward node, by the name PyTorch gives it (``node.name()`` as on the engine's)."""

    label: str

    def name(self) -> str:
        return self.label


@dataclass(frozen=True)
class StepInfo:
    """One executed backward node: its index in the pass and its name (``node.name()``)."""

    index: int
    node: NodeName


@dataclass(frozen=True, eq=False)
class PauseInfo:
    """A ``Pause`` as plain data: where the script is suspended, without its live names."""

    kind: str
    line: int
    col: int
    end_line: int
    end_col: int
    depth: int
    stack: tuple  # ((function name, line), ...), outermost first
    loop_iterations: tuple
    step: StepInfo | None = None
    stmt_text: str = ""  # the statement's source (dedented), parsed by ``stmt``
    globals: dict = field(default_factory=dict)
    locals: dict = field(default_factory=dict)

    @property
    def stmt(self) -> ast.stmt | None:
        """The statement, parsed from its text with its line numbers (None if it cannot be)."""
        cached = self.__dict__.get("_stmt", False)
        if cached is not False:
            return cached
        node = None
        try:
            body = ast.parse(self.stmt_text).body
            if body:
                node = body[0]
                ast.increment_lineno(node, self.line - 1)
        except (SyntaxError, ValueError):
            node = None
        object.__setattr__(self, "_stmt", node)
        return node

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_stmt", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


@dataclass(frozen=True)
class ErrorInfo:
    """A ``ScriptError`` as plain data; ``cause_type`` / ``cause_message`` its ``__cause__``."""

    kind: str
    message: str
    line: int | None = None
    col: int | None = None
    cause_type: str | None = None
    cause_message: str | None = None


# ------------------------------------------------------------------------------ pauses and steps
def step_info(step) -> StepInfo | None:
    if step is None:
        return None
    node = step.node
    return StepInfo(int(step.index), NodeName(node.name() if node is not None else "?"))


_TEXT_CACHE: dict = {}


def _stmt_text(stmt, source: str | None) -> str:
    key = (id(source), stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
    text = _TEXT_CACHE.get(key)
    if text is None:
        segment = ast.get_source_segment(source, stmt, padded=True) if source else None
        if segment is None:
            try:
                segment = ast.unparse(stmt)
            except Exception:
                segment = ""
        text = textwrap.dedent(segment)
        if len(_TEXT_CACHE) > 4096:
            _TEXT_CACHE.clear()
        _TEXT_CACHE[key] = text
    return text


def pause_info(pause, source: str | None = None) -> PauseInfo | None:
    """The plain-data form of an interpreter ``Pause`` (or a recording's ``ReplayPause``)."""
    if pause is None or isinstance(pause, PauseInfo):
        return pause
    stmt = getattr(pause, "stmt", None)
    stack = tuple((str(f[0]), int(f[1])) for f in getattr(pause, "stack", ()) or ())
    return PauseInfo(
        kind=str(pause.kind), line=int(pause.line), col=int(getattr(pause, "col", 0) or 0),
        end_line=int(getattr(pause, "end_line", pause.line) or pause.line),
        end_col=int(getattr(pause, "end_col", 0) or 0), depth=int(getattr(pause, "depth", 0)),
        stack=stack,
        loop_iterations=tuple(tuple(x) for x in getattr(pause, "loop_iterations", ()) or ()),
        step=step_info(getattr(pause, "step", None)),
        stmt_text=_stmt_text(stmt, source) if stmt is not None else "",
    )


def error_info(error) -> ErrorInfo | None:
    if error is None or isinstance(error, ErrorInfo):
        return error
    cause = getattr(error, "__cause__", None)
    return ErrorInfo(
        kind=str(getattr(error, "kind", "runtime")),
        message=str(getattr(error, "message", None) or error),
        line=getattr(error, "line", None), col=getattr(error, "col", None),
        cause_type=type(cause).__name__ if cause is not None else None,
        cause_message=str(cause) if cause is not None else None,
    )


_CAUSES: dict = {}


def script_error(info: ErrorInfo | None):
    """The ``ScriptError`` ``info`` describes (its cause an exception of the same type name)."""
    if info is None:
        return None
    from ..script.errors import KINDS, ScriptError

    error = ScriptError(info.kind if info.kind in KINDS else "runtime", info.message,
                        info.line, info.col)
    if info.cause_type is not None:
        cls = _CAUSES.get(info.cause_type)
        if cls is None:
            import builtins

            found = getattr(builtins, info.cause_type, None)
            cls = found if isinstance(found, type) and issubclass(found, BaseException) else \
                type(info.cause_type, (Exception,), {"__module__": "gradstep.worker"})
            _CAUSES[info.cause_type] = cls
        try:
            error.__cause__ = cls(info.cause_message)
        except Exception:
            error.__cause__ = type(info.cause_type, (Exception,), {})(info.cause_message)
    return error


def _plain_diff(diff):
    if diff is None or not getattr(diff, "backward_steps", ()):
        return diff
    if all(isinstance(s, StepInfo) for s in diff.backward_steps):
        return diff
    return replace(diff, backward_steps=tuple(step_info(s) for s in diff.backward_steps))


# ------------------------------------------------------------------------------ events
def to_wire(event: ev.SessionEvent, source: str | None = None) -> ev.SessionEvent:
    """``event`` with its live objects replaced by plain data (same type: views dispatch on it).

    ``source`` (the script) gives ``PauseInfo.stmt_text`` its exact text."""
    match event:
        case ev.Paused():
            return replace(event, pause=pause_info(event.pause, source),
                           diff=_plain_diff(event.diff))
        case ev.Finished():
            return replace(event, namespace=None, diff=_plain_diff(event.diff))
        case ev.Error():
            return replace(event, error=error_info(event.error), diff=_plain_diff(event.diff))
    return event


def from_wire(event: ev.SessionEvent) -> ev.SessionEvent:
    """The window's form of a wire event: an ``Error`` carries a ``ScriptError`` again."""
    if isinstance(event, ev.Error) and isinstance(event.error, ErrorInfo):
        return replace(event, error=script_error(event.error))
    return event


# ------------------------------------------------------------------------------ checking
_PLAIN = (type(None), bool, int, float, complex, str, bytes, np.generic)


def foreign_objects(value: Any, path: str = "value", _seen: set | None = None) -> list[str]:
    """Where ``value`` holds something that is not plain data (for tests): builtins, numpy
    arrays and scalars, enums of str, and dataclasses (and networkx graphs) of those."""
    seen = _seen if _seen is not None else set()
    if isinstance(value, _PLAIN):
        return []
    if id(value) in seen:
        return []
    seen.add(id(value))
    out: list[str] = []
    if isinstance(value, np.ndarray):
        return [] if value.dtype != object else [f"{path}: object array"]
    if isinstance(value, (list, tuple, set, frozenset)):
        for i, item in enumerate(value):
            out += foreign_objects(item, f"{path}[{i}]", seen)
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out += foreign_objects(k, f"{path}.key({k!r})", seen)
            out += foreign_objects(v, f"{path}[{k!r}]", seen)
        return out
    if type(value).__module__.startswith("networkx"):
        out += foreign_objects(dict(value.graph), f"{path}.graph", seen)
        for n, data in value.nodes(data=True):
            out += foreign_objects((n, dict(data)), f"{path}.node({n!r})", seen)
        for u, v, data in value.edges(data=True):
            out += foreign_objects((u, v, dict(data)), f"{path}.edge({u!r},{v!r})", seen)
        return out
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            out += foreign_objects(getattr(value, f.name), f"{path}.{f.name}", seen)
        return out
    from enum import Enum

    if isinstance(value, Enum):
        return []
    return [f"{path}: {type(value).__module__}.{type(value).__qualname__}"]
