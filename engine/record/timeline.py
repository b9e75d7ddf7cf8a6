"""The points of a replay as a sequence made on demand: ``ReplayTimeline``.

A replay has one point per recorded node per iteration (two iterations of a 100,000-node
backward: 160,000 points); as a list of frozen dataclasses, made before the window could show
anything, that took seconds. Every point follows from its index, so each is made when read (a
few microseconds; equal points compare equal, as the list's did).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from ..gc_policy import keep_if_large
from ..session.timeline import BACKWARD, STEP, TimelinePoint


class ReplayTimeline(Sequence):
    """``(steps + 1) * iterations`` backward-step points, then the end.

    Parameters
    ----------
    steps : int
        Nodes run by each backward.
    iterations : int
        Recorded iterations (0: one backward with no iteration number).
    stepped : sequence of bool
        Per iteration, whether an optimizer stepped after it (the next point 0 gets ``step``).
    """

    def __init__(self, steps: int, iterations: int, stepped) -> None:
        self.steps = steps
        self.iterations = iterations
        self._stepped = tuple(bool(s) for s in stepped)
        self._len = (steps + 1) * max(1, iterations) + 1
        self._points: list | None = None  # every point, once something iterated them all

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._point(i) for i in range(*index.indices(self._len))]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError(f"timeline index {index} out of range")
        return self._point(i) if self._points is None else self._points[i]

    def __iter__(self):
        if self._points is None:
            self._points = list(map(self._point, range(self._len)))
            keep_if_large(self._len)  # 320,000 objects for 160,000 points (engine/gc_policy.py)
        return iter(self._points)

    def marked(self, marker: str) -> list[TimelinePoint]:
        """The points that carry ``marker``, in order, without making the others: a replay
        marks only each backward's first step and the point after each optimizer step (the
        console counted warnings by making all 160,000 points of a big recording)."""
        per = self.steps + 1
        if marker == BACKWARD and self.steps >= 1:
            indices = range(1, self._len - 1, per)
        elif marker == STEP:
            indices = [i * per for i in range(1, max(1, self.iterations)) if self._stepped[i - 1]]
        else:
            return []
        return [self[i] for i in indices]

    def _point(self, index: int) -> TimelinePoint:
        if index == self._len - 1:
            return TimelinePoint(index, "finished", None, None, None, frozenset(), index,
                                 reason="finished")
        per = self.steps + 1
        i, k = divmod(index, per)
        markers = set()
        if k == 1:
            markers.add(BACKWARD)
        if k == 0 and i > 0 and self._stepped[i - 1]:
            markers.add(STEP)
        # The frozen dataclass's __init__ sets each field through object.__setattr__: writing
        # the instance's dict at once makes the same point (equal, same hash) in half the time.
        point = _new(TimelinePoint)
        point.__dict__.update(
            index=index, kind="backward_step", line=None,
            iteration=i if self.iterations else None, backward_step=(k, self.steps),
            markers=_frozen(frozenset(markers)), raw_index=index, depth=0, reason=None)
        return point


_new = object.__new__


@cache
def _frozen(markers: frozenset) -> frozenset:
    return markers  # one shared set per combination, as the points are many
