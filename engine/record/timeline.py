"""The points of a replay as a sequence made on demand: ``ReplayTimeline``.

A replay has one point per recorded node per iteration (two iterations of a 100,000-node
backward: 160,000 points); as a list of frozen dataclasses, made before the window could show
anything, that took seconds. Every point follows from its index, so each is made when read (a
few microseconds; equal points compare equal, as the list's did).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

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

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._point(i) for i in range(*index.indices(self._len))]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError(f"timeline index {index} out of range")
        return self._point(i)

    def __iter__(self):
        return map(self._point, range(self._len))  # the panel lists them all: no bounds checks

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
        return TimelinePoint(index, "backward_step", None, i if self.iterations else None,
                             (k, self.steps), _frozen(frozenset(markers)), index)


@cache
def _frozen(markers: frozenset) -> frozenset:
    return markers  # one shared set per combination, as the points are many
