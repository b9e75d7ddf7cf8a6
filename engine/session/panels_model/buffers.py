"""The gradient buffers: every write into every ``.grad`` (``BufferLedger``) and the rows the
buffer panel shows (``buffer_rows``): per buffer its grad, norm, change since the last pause, and
its contributions, one per backward() call, with the paths that met at a fan-in.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import events
from ...autograd.node import AccumulateGrad
from ..state import Snapshot, TensorRecord, named_tensors
from .arrays import format_array, norm
from .csv_export import Table

if TYPE_CHECKING:
    from .recorder import PanelsRecorder


MAX_HISTORY = 128  # writes kept per tensor: a loop without zero_grad() adds one per iteration
MAX_SHOWN = 8  # contributions listed per buffer; older ones are shown folded into one

ZERO_GRAD_NOTE = (
    "zero_grad() sets .grad to None by default (set_to_none=True): no memory is kept and "
    "optimizers skip a parameter whose .grad is None. With set_to_none=False it fills zeros "
    "instead, and the parameter still takes a step (weight decay and momentum keep moving it)."
)


def group_of(name: str) -> str:
    """The module path of a display name: ``model.fc1.weight`` -> ``model.fc1``; ``w`` -> ``""``."""
    return name.rpartition(".")[0]


@dataclass(frozen=True)
class Contribution:
    """What one backward call (or a folded run of them) added into a ``.grad`` buffer."""

    first_call: int  # backward calls are numbered from 1 since the recorder attached
    last_call: int  # == first_call unless older contributions were folded together
    value: np.ndarray
    # at a fan-in (the tensor used twice, e.g. t1 * t1): the gradient of each incoming path as
    # (sending node's name, array); they sum to ``value`` unless a hook changed it
    paths: tuple[tuple[str, np.ndarray], ...] = ()

    @property
    def label(self) -> str:
        if self.first_call == self.last_call:
            return f"backward #{self.first_call}"
        return f"backward #{self.first_call}–#{self.last_call}"


class _History:
    __slots__ = ("ref", "entries", "dropped", "writes")

    def __init__(self, tensor) -> None:
        self.ref = weakref.ref(tensor)
        # (kind, call, value, paths); kind "add", or "none"/"zeros" for a zero_grad()
        self.entries: list[tuple] = []
        self.dropped = False  # the oldest entries were dropped (MAX_HISTORY)
        self.writes = 0  # entries ever appended


@dataclass(frozen=True)
class BufferState:
    """A buffer's story at one moment: how it was last reset and what was added since."""

    reset_as: str | None  # "none" / "zeros": the last zero_grad(); None: never reset
    contributions: tuple[Contribution, ...]
    complete: bool  # False when older writes were not recorded (or were dropped)
    note: str | None = None  # how the buffer got its value, when the story is told elsewhere


class BufferLedger:
    """Every write into every ``.grad``: contributions per backward call and zero_grad() resets."""

    def __init__(self) -> None:
        self.calls = 0
        self._histories: dict[int, _History] = {}
        self._paths: dict[int, list[tuple[str, np.ndarray]]] = {}

    def handle(self, event: events.Event) -> None:
        kind, p = event.kind, event.payload
        if kind == events.BACKWARD_STARTED:
            self.calls += 1
            self._paths.clear()
        elif kind == events.BACKWARD_STEP:
            self._note_step(p["step"])
        elif kind == events.GRAD_ACCUMULATED:
            t = p["tensor"]
            paths = self._paths.pop(id(t), ())
            self._append(t, ("add", self.calls, np.array(p["contribution"], copy=True),
                             tuple(paths) if len(paths) > 1 else ()))
        elif kind == events.GRAD_ZEROED:
            reset = "none" if p["set_to_none"] else "zeros"
            self._append(p["tensor"], (reset, self.calls, None, ()))

    def _note_step(self, step) -> None:
        node = step.node
        for (nxt, _), g in zip(node.next_functions, step.grads_out):
            if g is not None and nxt.__class__ is AccumulateGrad:
                self._paths.setdefault(id(nxt.variable), []).append((node.name(), g))
        retained = getattr(node, "retained", None)
        if retained:  # a retained non-leaf grad is written without a grad_accumulated event
            for nr, ref in retained.items():
                t = ref()
                if t is not None and step.grads_in[nr] is not None:
                    value = np.array(step.grads_in[nr], copy=True)
                    self._append(t, ("add", self.calls, value, ()))

    def _append(self, tensor, entry) -> None:
        h = self._histories.get(id(tensor))
        if h is None or h.ref() is not tensor:  # a new tensor reusing a dead one's id
            h = self._histories[id(tensor)] = _History(tensor)
        h.entries.append(entry)
        h.writes += 1
        if len(h.entries) > MAX_HISTORY:
            del h.entries[: len(h.entries) - MAX_HISTORY]
            h.dropped = True

    def mark(self, tensor) -> tuple | None:
        """What changes whenever the buffer's story does (None: no story)."""
        h = self._histories.get(id(tensor)) if tensor is not None else None
        return None if h is None or h.ref() is not tensor else (h, h.writes)

    def state(self, tensor) -> BufferState:
        """The buffer's story: its last reset and what each backward call added since."""
        h = self._histories.get(id(tensor)) if tensor is not None else None
        if h is None or h.ref() is not tensor:
            return BufferState(None, (), True)
        entries = h.entries
        start = max((i for i, e in enumerate(entries) if e[0] != "add"), default=-1)
        reset_as = entries[start][0] if start >= 0 else None
        merged: list[Contribution] = []
        for _, call, value, paths in entries[start + 1:]:
            if merged and merged[-1].last_call == call:  # two writes in one backward call
                value = merged.pop().value + value
            merged.append(Contribution(call, call, value, paths))
        complete = start >= 0 or not h.dropped
        return BufferState(reset_as, tuple(merged), complete)


def folded(contribs: tuple[Contribution, ...], shown: int = MAX_SHOWN) -> tuple:
    """At most ``shown`` contributions: the oldest ones summed into one folded contribution."""
    if len(contribs) <= shown:
        return contribs
    old = contribs[: len(contribs) - shown + 1]
    total = sum((c.value for c in old[1:]), old[0].value.copy())
    return (Contribution(old[0].first_call, old[-1].last_call, total),) + contribs[len(old):]


@dataclass(frozen=True)
class BufferRow:
    name: str
    group: str  # module path ("model.fc1"), "" for plain names
    shape: tuple[int, ...]
    kind: str  # "leaf" or "retained"
    state: str  # "none", "zeros" or "values"
    grad: np.ndarray | None
    norm: float | None
    changed: bool  # since the previous pause shown
    delta: np.ndarray | None  # grad now minus grad before (a None grad counts as 0)
    contributions: tuple[Contribution, ...]  # folded to MAX_SHOWN
    note: str  # one line on how this buffer got its value


def has_buffer(record: TensorRecord) -> bool:
    """A ``.grad`` buffer can exist: a leaf that requires (or holds) grad, or a retained grad."""
    if record.is_leaf:
        return record.requires_grad or record.grad is not None
    return record.retains_grad


def buffer_rows(
    snapshot: Snapshot,
    live: Mapping[str, Any],
    recorder: "PanelsRecorder",
    previous: Iterable[BufferRow] | Snapshot = (),
) -> list[BufferRow]:
    """One row per ``.grad`` buffer in ``snapshot``, grouped by module, in script order.

    ``live`` maps the script's names to its objects (to find the tensors' recorded writes);
    ``previous`` is what was shown at the previous pause (for "changed"): its rows, or its
    snapshot (a panel hidden behind a tab keeps the snapshot and makes no rows for it).
    """
    if not isinstance(previous, Snapshot):
        previous = list(previous)
    before = previous_grads(previous)
    kept = {} if isinstance(previous, Snapshot) else {r.name: r for r in previous}
    tensors = named_tensors(live)
    rows = []
    with recorder.lock:
        for name, rec in snapshot.tensors.items():
            if not has_buffer(rec):
                continue
            grad = rec.grad
            prior = kept.get(name)
            if prior is not None and prior.grad is grad:  # the same array: the same numbers
                state, size = prior.state, prior.norm
            else:
                state = "none" if grad is None else ("zeros" if not np.any(grad) else "values")
                size = None if grad is None else norm(grad)
            if recorder.replay is not None:  # a replay: the recording tells each story
                story = recorder.replay.stories.get(name, _UNKNOWN)
            else:
                story = recorder.ledger.state(tensors.get(name))
            note, contribs = _buffer_note(grad, story)
            old = before.get(name, _ABSENT)
            changed = old is not _ABSENT and not _same(old, grad)
            delta = None
            if changed and grad is not None and (old is None or old.shape == grad.shape):
                delta = grad.astype(np.float64) - (0 if old is None else old)
            rows.append(BufferRow(
                name, group_of(name), rec.shape, "leaf" if rec.is_leaf else "retained", state,
                grad, size, changed, delta, folded(contribs), note,
            ))
    rows.sort(key=lambda r: (r.group == "", r.group))  # stable: script order within a group
    return rows


_UNKNOWN = BufferState(None, (), True)
_ABSENT = object()  # no buffer of that name before: not "changed", just new to the panel


def previous_grads(previous: Iterable[BufferRow] | Snapshot) -> dict[str, np.ndarray | None]:
    """Display name -> the ``.grad`` shown at the previous point, from its rows or snapshot."""
    if isinstance(previous, Snapshot):
        return {name: rec.grad for name, rec in previous.tensors.items() if has_buffer(rec)}
    return {r.name: r.grad for r in previous}


def buffer_counts(snapshot: Snapshot, previous: Iterable[BufferRow] | Snapshot = ()) -> tuple:
    """(buffers, changed) as ``buffer_rows`` would count them, without making the rows: what a
    panel hidden behind a tab still says in its status line."""
    before = previous_grads(previous)
    buffers = changed = 0
    for name, rec in snapshot.tensors.items():
        if has_buffer(rec):
            buffers += 1
            old = before.get(name, _ABSENT)
            changed += old is not _ABSENT and not _same(old, rec.grad)
    return buffers, changed


def told_stories(snapshot: Snapshot, tensors: Mapping[str, Any], ledger: BufferLedger,
                 told: dict | None = None) -> dict[str, BufferState | None]:
    """Every buffer's story in ``snapshot`` as plain data, told the way a replay tells it: its
    note already written and its contributions folded, so ``buffer_rows`` gives the same rows
    from it (and it crosses a process boundary small). ``tensors``: ``named_tensors(live)``.

    ``told`` (kept by the caller between tellings): a story whose record, tensor and writes
    are those told the time before is None, "as told before"."""
    out: dict = {}
    now: dict = {}
    for name, rec in snapshot.tensors.items():
        if not has_buffer(rec):
            continue
        tensor = tensors.get(name)
        key = (rec, tensor, ledger.mark(tensor))
        before = told.get(name) if told is not None else None
        if before is not None and before[0] is rec and before[1] is tensor and \
                before[2] == key[2]:
            now[name], out[name] = before, None
            continue
        story = ledger.state(tensor)
        note, contribs = _buffer_note(rec.grad, story)
        now[name] = key
        out[name] = BufferState(story.reset_as, folded(contribs), story.complete, note)
    if told is not None:
        told.clear()
        told.update(now)
    return out


def _same(a, b) -> bool:
    # identity first: a snapshot shares the arrays of records that did not change, and a
    # 100,000-node replay compares 50,000 grads per step
    if a is b:
        return True
    if a is None or b is None:
        return False
    return a.shape == b.shape and np.array_equal(a, b)


def _buffer_note(grad, story: BufferState) -> tuple[str, tuple[Contribution, ...]]:
    contribs = story.contributions
    if story.note is not None:
        return story.note, contribs
    if grad is None:
        if story.reset_as == "none" and not contribs:
            return "None after zero_grad(set_to_none=True)", ()
        return "None: no backward() has reached it yet", ()
    if not contribs:
        if story.reset_as == "zeros" and not np.any(grad):
            return "zeros after zero_grad(set_to_none=False)", ()
        return "written before recording started", ()
    total = sum((c.value for c in contribs[1:]), contribs[0].value)
    if total.shape != grad.shape or not (np.array_equal(total, grad)  # the common case, fast
                                         or np.allclose(total, grad, rtol=1e-5, atol=1e-6)):
        if not story.complete:
            return "older backward() calls were not all recorded", contribs
        return "changed outside backward() (an in-place write or an assignment to .grad)", ()
    start = "zeros" if story.reset_as == "zeros" else "None"
    if len(contribs) == 1:
        fan = f", {len(contribs[0].paths)} paths added together" if contribs[0].paths else ""
        return f"written by one backward() call (was {start}){fan}", contribs
    return (f"sum of {len(contribs)} backward() calls: .grad accumulates until zero_grad()",
            contribs)


def buffer_table(rows: Iterable[BufferRow]) -> Table:
    return (
        ("name", "group", "shape", "state", "norm", "grad", "contributions"),
        [(r.name, r.group, "x".join(map(str, r.shape)) or "scalar", r.state, r.norm, r.grad,
          " + ".join(f"{c.label}: {format_array(c.value)}" for c in r.contributions))
         for r in rows],
    )
