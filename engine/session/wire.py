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
import operator
import textwrap
from collections.abc import Sequence
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


class StepInfos(Sequence):
    """The executed backward nodes of a diff, as ``StepInfo`` items, kept as two columns: a
    10,000-node backward's ``Finished`` crosses as one list of ints and one of names (each name
    string once), not as 10,000 objects to make, pickle and rebuild."""

    __slots__ = ("_indices", "_labels")

    def __init__(self, indices, labels) -> None:
        self._indices = tuple(indices)
        self._labels = tuple(labels)

    @classmethod
    def of(cls, steps) -> "StepInfos":
        indices, labels = [], []
        for step in steps:
            node = step.node
            indices.append(int(step.index))
            labels.append(node.name() if node is not None else "?")
        return cls(indices, labels)

    def __len__(self) -> int:
        return len(self._indices)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return StepInfos(self._indices[i], self._labels[i])
        return StepInfo(self._indices[i], NodeName(self._labels[i]))

    def __iter__(self):
        return map(StepInfo, self._indices, map(NodeName, self._labels))

    def __eq__(self, other) -> bool:
        if isinstance(other, StepInfos):
            return self._indices == other._indices and self._labels == other._labels
        return isinstance(other, (tuple, list)) and tuple(self) == tuple(other)

    def __hash__(self) -> int:  # a diff holding it stays hashable, as with a tuple
        return hash((self._indices, self._labels))

    def __repr__(self) -> str:
        return f"StepInfos({len(self)} steps)"

    def __reduce__(self):
        return StepInfos, (self._indices, self._labels)


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
    steps = diff.backward_steps
    if isinstance(steps, StepInfos) or all(isinstance(s, StepInfo) for s in steps):
        return diff
    return replace(diff, backward_steps=StepInfos.of(steps))


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
    if isinstance(value, StepInfos):  # plain columns inside
        return foreign_objects((value._indices, value._labels), path, seen)
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


# ------------------------------------------------------------------------------ the graph model
@dataclass(frozen=True)
class GraphUnchanged:
    """In place of a graph model the window already has: the worker's new graph equals the one
    it sent last in every node, edge and attribute (``engine.graph.model.same_graph``); only
    ``meta``, its ``graph.graph`` (what changed since: nothing), is new."""

    meta: dict

    def applied_to(self, previous):
        """A graph model sharing ``previous``'s nodes and edges (never changed once built),
        with this ``meta``: a new object, as a new graph would be."""
        graph = type(previous)()
        graph._node = previous._node
        graph._adj = graph._succ = previous._adj
        graph._pred = previous._pred
        graph.graph = dict(self.meta)
        return graph


# ------------------------------------------------------------------------------ the panels' data
@dataclass(frozen=True)
class HistoryData:
    """A ``TrainingHistory`` as plain data: the loss per iteration and, per display name,
    ``(xs, ys)`` of the gradient norms and the update ratios. With ``appended`` it is only what
    was added since the one sent before (the loss and each series from where they ended)."""

    loss: np.ndarray
    grad_norms: dict
    update_ratios: dict
    appended: bool = False


class HistorySender:
    """The worker's side of the training curves: ``data(history, names)`` is what to send now
    (None: nothing new), the whole history once and then only what each send adds to it."""

    def __init__(self) -> None:
        self._sent = None  # (history, version, loss length, {table: {name: length}})

    def data(self, history, names) -> HistoryData | None:
        sent = self._sent
        if sent is not None and sent[0] is history and sent[1] == history.version:
            return None
        tables = {"grad_norms": history.series(history.grad_norms, names),
                  "update_ratios": history.series(history.update_ratios, names)}
        loss = np.array(history.loss, dtype=np.float64)
        lengths = {key: {n: len(xs) for n, (xs, _) in table.items()}
                   for key, table in tables.items()}
        self._sent = (history, history.version, len(loss), lengths)
        if sent is None or sent[0] is not history or not _grew(sent, len(loss), lengths):
            return HistoryData(loss, tables["grad_norms"], tables["update_ratios"])
        tails = {key: {n: (xs[sent[3][key].get(n, 0):], ys[sent[3][key].get(n, 0):])
                       for n, (xs, ys) in table.items()} for key, table in tables.items()}
        return HistoryData(loss[sent[2]:], tails["grad_norms"], tails["update_ratios"], True)


def _grew(sent, loss_length: int, lengths: dict) -> bool:
    """Everything sent before is still there, in the same order: the new data only appends."""
    if loss_length < sent[2]:
        return False
    for key, table in lengths.items():
        before = sent[3][key]
        if list(table) != list(before) or any(table[n] < before[n] for n in before):
            return False
    return True


def history_from(data: HistoryData, current=None):
    """The window's ``TrainingHistory`` for ``data``: a new one, or ``current`` (the one made
    from the sends before) extended in place when ``data`` only appends to it."""
    from array import array

    from .panels_model.training import TrainingHistory

    if not data.appended or current is None:
        return TrainingHistory.from_series(data.loss, data.grad_norms, data.update_ratios)
    current.loss.extend(array("d", data.loss.tolist()))
    for table, given in ((current.grad_norms, data.grad_norms),
                         (current.update_ratios, data.update_ratios)):
        for name, (xs, ys) in given.items():  # the same names as before (HistorySender)
            table[name].xs.extend(array("d", xs.tolist()))
            table[name].ys.extend(array("d", ys.tolist()))
    current.version += 1
    return current


@dataclass(frozen=True)
class PanelsData:
    """What the worker tells the window's panels, in the message stream just before the event
    it belongs to (``engine.session.told``). At a point at rest (``at_rest``): what a
    ``ReplayFeed`` holds (``stories``, ``optimizers``, ``steps``; ``same``: as told the time
    before) and the predict panel's ``predictions`` there; while the script runs only the
    training curves. ``history`` None: unchanged."""

    at_rest: bool = False
    same: bool = False
    stories: dict = field(default_factory=dict)
    optimizers: tuple = ()
    steps: dict = field(default_factory=dict)
    predictions: tuple = ()
    history: HistoryData | None = None

    def feed(self, before=None):
        """The ``ReplayFeed`` the panels' models read now (None: keep the one told before);
        ``before`` is that one: a story or step None here is the same as there."""
        from .panels_model.replay import ReplayFeed

        if not self.at_rest or self.same:
            return None
        stories = self.stories
        steps = self.steps
        if before is not None:
            stories = _filled(stories, before.stories)
            steps = _filled(steps, before.steps)
        return ReplayFeed(self.optimizers, steps, stories)


# ------------------------------------------------------------------------------ snapshots
@dataclass(frozen=True)
class SnapshotDelta:
    """A ``Snapshot`` as what differs from the one sent just before it. A session shares the
    records that did not change between its snapshots (``state.capture``); those cross as
    ``None`` (the same as there) instead of their arrays being pickled again."""

    tensors: dict  # name -> TensorRecord, or None: the previous snapshot's
    optimizer: dict  # (optimizer, param, key) -> value, or None: the previous snapshot's
    scalars: dict
    console_lines: int


class SnapshotChain:
    """One side of the stream of snapshots between the worker and the window: ``pack`` (worker)
    and ``unpack`` (window) see the same snapshots in the same order, so each but the first
    crosses as a ``SnapshotDelta`` against the one before."""

    def __init__(self) -> None:
        self.last = None

    def pack(self, snap):
        last, self.last = self.last, snap
        if last is None or snap is None or isinstance(snap, SnapshotDelta):
            return snap
        if snap is last:
            return SnapshotDelta({k: None for k in snap.tensors},
                                 {k: None for k in snap.optimizer}, snap.scalars,
                                 snap.console_lines)
        return SnapshotDelta(_shared(snap.tensors, last.tensors),
                             _shared(snap.optimizer, last.optimizer), snap.scalars,
                             snap.console_lines)

    def unpack(self, snap):
        if isinstance(snap, SnapshotDelta):
            last = self.last
            snap = type(last)(_filled(snap.tensors, last.tensors),
                              _filled(snap.optimizer, last.optimizer), snap.scalars,
                              snap.console_lines)
        if snap is not None:
            self.last = snap
        return snap

    def pack_event(self, event):
        if isinstance(event, (ev.Paused, ev.Finished, ev.Error)) and event.snapshot is not None:
            return replace(event, snapshot=self.pack(event.snapshot))
        return event

    def unpack_event(self, event):
        if isinstance(event, (ev.Paused, ev.Finished, ev.Error)) and event.snapshot is not None:
            return replace(event, snapshot=self.unpack(event.snapshot))
        return event


def _shared(now: dict, before: dict) -> dict:
    return {k: None if before.get(k, _MISSING) is v else v for k, v in now.items()}


def _filled(now: dict, before: dict) -> dict:
    return {k: before[k] if v is None else v for k, v in now.items()}


_MISSING = object()


class ListSender:
    """A list the window keeps a copy of (timeline points, console lines, losses, warnings),
    sent as ``(prefix, tail)``: the items from the first one that is not the very object sent
    before. ``ListSender.apply(copy, delta)`` is the window's side."""

    def __init__(self) -> None:
        self._sent: list = []

    def delta(self, items) -> tuple[int, list]:
        items = list(items)
        sent = self._sent
        same = list(map(operator.is_, items, sent))  # one C loop: a timeline has 20 000 points
        prefix = same.index(False) if False in same else len(same)
        self._sent = items
        return prefix, items[prefix:]

    @staticmethod
    def apply(copy, delta) -> list:
        prefix, tail = delta
        return list(copy[:prefix]) + list(tail)
