"""The timeline: every pause of a session as a ``TimelinePoint``, with snapshots to display it.

Snapshots are kept within a memory budget: a full one (keyframe) every ``keyframe_every`` points
and, in between, only the entries that changed. Records shared between snapshots (a tensor that did
not change) are stored once. When the budget is exceeded the oldest segments lose their snapshots;
those points can still be reached exactly by re-executing the script from the start with the same
seed (the session does that in ``go_to``), since the interpreter cannot be copied mid-run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .state import Snapshot, TensorRecord

# Markers on a point: what happened since the previous point.
BACKWARD = "backward"
ZERO_GRAD = "zero_grad"
STEP = "step"
WARNING = "warning"
ERROR = "error"

_REMOVED = object()
# Rough cost of one dict entry holding a shared record (key tuple, slot, bookkeeping).
_ENTRY_BYTES = 120


@dataclass(frozen=True)
class TimelinePoint:
    """One pause of the session.

    Attributes
    ----------
    index : int
        Position on the timeline (0 = the first pause).
    kind : str
        ``"statement"``, ``"backward_step"``, ``"error"`` or ``"finished"``.
    line : int or None
        The statement's line.
    iteration : int or None
        Iteration of the outermost loop around the position.
    backward_step : tuple of (int, int) or None
        ``(k, n)``: the k-th node (1-based) of a backward pass of n nodes.
    markers : frozenset of str
        What happened since the previous point: ``backward``, ``zero_grad``, ``step``,
        ``warning``, ``error``.
    raw_index : int
        How many interpreter pauses preceded this one: re-executing the script that far reaches
        this point exactly.
    depth : int
        Call depth (0 = module level).
    reason : str or None
        Why the session paused here (a breakpoint, a data breakpoint, a step command).
    """

    index: int
    kind: str
    line: int | None
    iteration: int | None = None
    backward_step: tuple | None = None
    markers: frozenset = field(default_factory=frozenset)
    raw_index: int = 0
    depth: int = 0
    reason: str | None = None


def _value_bytes(value) -> int:
    if isinstance(value, TensorRecord):
        return value.nbytes + 200
    if isinstance(value, np.ndarray):
        return value.nbytes + 112
    return sys.getsizeof(value)


def _delta(prev: Snapshot, snap: Snapshot) -> dict:
    """``snap``'s entries that are not ``prev``'s (by identity: a record is shared when it did
    not change), keyed as ``Snapshot.flat``, and ``_REMOVED`` for the entries gone. Made section
    by section, without building either snapshot's flat dict: a run passes 100k+ statements."""
    delta: dict = {}
    for tag, new, old in (("t", snap.tensors, prev.tensors), ("s", snap.scalars, prev.scalars),
                          ("o", snap.optimizer, prev.optimizer)):
        added = 0
        for k, v in new.items():
            was = old.get(k, _REMOVED)
            if was is not v:
                delta[(tag, k) if tag != "o" else ("o",) + k] = v
                added += was is _REMOVED
        if len(new) - added < len(old):  # some of old's keys are not in new
            delta.update((((tag, k) if tag != "o" else ("o",) + k), _REMOVED)
                         for k in old if k not in new)
    return delta


class Timeline(Sequence):
    """The points of a session and their snapshots, within ``budget_bytes``.

    Parameters
    ----------
    budget_bytes : int
        Memory the stored snapshots may take, as accounted: arrays plus a per-entry overhead, a
        record shared by several segments counted in each (point metadata is not counted).
    keyframe_every : int
        A full snapshot every this many points; only changes are stored in between.
    """

    def __init__(self, budget_bytes: int = 64 * 2**20, keyframe_every: int = 64) -> None:
        self.budget_bytes = budget_bytes
        self.keyframe_every = keyframe_every
        self._points: list[TimelinePoint] = []
        self._stored: list = []  # per point: flat dict (keyframe), delta dict, or None (evicted)
        self._consoles: list[int] = []
        # keyframe index -> bytes of its segment, in increasing index order (appends add
        # larger keys, truncation removes the largest), so the oldest segment is the first key
        self._segment_bytes: dict[int, int] = {}
        self._total_bytes = 0  # sum of _segment_bytes: a run's timeline has 100k+ points
        self._current_seg = 0  # the keyframe the last point belongs to
        self._last: Snapshot | None = None  # the last point's snapshot, deltas are from it
        self.evicted_segments = 0

    # -- Sequence --------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._points)

    def __getitem__(self, i):
        return self._points[i]

    # -- recording -------------------------------------------------------------------------------
    def append(self, point: TimelinePoint, snapshot: Snapshot) -> None:
        """Add the next point with the snapshot shown there."""
        if point.index != len(self._points):
            raise ValueError(f"point {point.index} appended at position {len(self._points)}")
        keyframe = point.index % self.keyframe_every == 0 or self._last is None
        if keyframe:
            flat = snapshot.flat()
            stored = ("key", flat)
            cost = sum(_value_bytes(v) for v in flat.values()) + _ENTRY_BYTES * len(flat)
        else:
            delta = _delta(self._last, snapshot)
            stored = ("delta", delta)
            cost = sum(_value_bytes(v) for v in delta.values() if v is not _REMOVED)
            cost += _ENTRY_BYTES * (len(delta) + 1)
        self._points.append(point)
        self._stored.append(stored)
        self._consoles.append(snapshot.console_lines)
        if keyframe:
            self._current_seg = point.index
        seg = self._current_seg
        self._segment_bytes[seg] = self._segment_bytes.get(seg, 0) + cost
        self._total_bytes += cost
        self._last = snapshot
        self._enforce_budget()

    def replace_last(self, point: TimelinePoint) -> None:
        """Update the last point's metadata (its reason or markers), keeping its snapshot."""
        self._points[-1] = point

    def replace(self, index: int, point: TimelinePoint) -> None:
        """Update point ``index``'s metadata, keeping its snapshot."""
        if point.index != index:
            raise ValueError(f"point {point.index} put at position {index}")
        self._points[index] = point

    # Points are ordered by the pause they are (``raw_index``; the end of a run comes after its
    # last pause, which has the same raw index): a re-executed run reaches them in that order.
    @staticmethod
    def _key(raw_index: int, end: bool) -> tuple:
        return (raw_index, 1 if end else 0)

    def _point_key(self, i: int) -> tuple:
        p = self._points[i]
        return self._key(p.raw_index, p.kind in ("finished", "error"))

    def position_of(self, raw_index: int, end: bool = False) -> tuple[int, bool]:
        """``(i, found)``: the point that is the pause ``raw_index`` (``end``: the run's end
        after it), or where such a point would be inserted."""
        key = self._key(raw_index, end)
        lo, hi = 0, len(self._points)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._point_key(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo, lo < len(self._points) and self._point_key(lo) == key

    def insert(self, point: TimelinePoint, snapshot: Snapshot) -> None:
        """Add ``point`` at ``point.index``, before the points there (their indices grow by
        one). Appending is the cheap case; inserting re-stores the later snapshots."""
        at = point.index
        if at == len(self._points):
            self.append(point, snapshot)
            return
        if not 0 <= at < len(self._points):
            raise ValueError(f"point {at} inserted in a timeline of {len(self._points)}")
        later = [(p, self.snapshot(i), self._consoles[i])
                 for i, p in enumerate(self._points[at:], start=at)]
        evicted = self.evicted_segments
        self.truncate(at)
        self.append(point, snapshot)
        from dataclasses import replace as _replace

        for p, snap, console in later:
            moved = _replace(p, index=p.index + 1)
            if snap is None:
                self._append_evicted(moved, console)
            else:
                self.append(moved, snap)
        self.evicted_segments = max(self.evicted_segments, evicted)

    def _append_evicted(self, point: TimelinePoint, console_lines: int) -> None:
        """A point whose snapshot was already given up (re-execution reaches it)."""
        self._points.append(point)
        self._stored.append(None)
        self._consoles.append(console_lines)
        self._last = None

    def truncate(self, length: int) -> None:
        """Forget the points from ``length`` on (the user continued from an earlier point)."""
        if length >= len(self._points):
            return
        del self._points[length:]
        del self._stored[length:]
        del self._consoles[length:]
        for seg in [s for s in self._segment_bytes if s >= length]:
            del self._segment_bytes[seg]
        self._total_bytes = sum(self._segment_bytes.values())
        if length:
            self._current_seg = self._segment_of(length - 1)
        # The next point is stored as changes from the last kept one, or as a keyframe when
        # that one was evicted (``_last`` None).
        self._last = self.snapshot(length - 1) if length else None

    def clear(self) -> None:
        self.truncate(0)

    # -- reading ---------------------------------------------------------------------------------
    def snapshot(self, index: int) -> Snapshot | None:
        """The snapshot at point ``index``, or None when its segment was evicted."""
        if not 0 <= index < len(self._points):
            raise IndexError(f"no point {index} on a timeline of {len(self._points)}")
        start = index
        while self._stored[start] is not None and self._stored[start][0] != "key":
            start -= 1
        if self._stored[start] is None:
            return None
        flat = dict(self._stored[start][1])
        for i in range(start + 1, index + 1):
            stored = self._stored[i]
            if stored is None:
                return None
            for k, v in stored[1].items():
                if v is _REMOVED:
                    flat.pop(k, None)
                else:
                    flat[k] = v
        return Snapshot.from_flat(flat, self._consoles[index])

    def console_lines(self, index: int) -> int:
        """How many console lines had been printed at point ``index`` (kept after eviction)."""
        return self._consoles[index]

    @property
    def stored_bytes(self) -> int:
        """Accounted bytes of the stored snapshots (see ``budget_bytes``)."""
        return self._total_bytes

    # -- budget ----------------------------------------------------------------------------------
    def _segment_of(self, index: int) -> int:
        while index > 0 and self._stored[index] is not None and self._stored[index][0] != "key":
            index -= 1
        return index

    def _enforce_budget(self) -> None:
        current = self._current_seg
        while self._total_bytes > self.budget_bytes and len(self._segment_bytes) > 1:
            # in index order: the first key is the oldest, the next one ends its segment
            segments = iter(self._segment_bytes)
            oldest = next(segments)
            if oldest == current:  # the last point's segment is never given up
                oldest = next(segments)
            end = next(segments, len(self._points))
            for i in range(oldest, end):
                self._stored[i] = None
            self._total_bytes -= self._segment_bytes.pop(oldest)
            self.evicted_segments += 1
