"""``MemoryMeter``: the memory a script holds, for ``Limits.max_total_bytes``.

Two measures: the bytes of the large tensors the script received (exact, checked as each tensor
arrives), and the growth of the process's resident memory since the run started (coarse, checked
every few thousand statements and after every large allocation), which also catches lists of lists,
classes made in a loop and anything else that is not a tensor.
"""

from __future__ import annotations

import os
import weakref

import numpy as np

from .errors import limit


class MemoryMeter:
    """Counts the arrays of large tensors the script received until those tensors die.

    Only arrays that own their memory are counted (a view adds nothing), each once. It is an
    estimate, and a cheap one: small tensors are not tracked at all.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.total = 0
        self._live: dict[int, weakref.ref] = {}
        # the interpreter itself, imports and caches grow a little too: allow for that
        self._process_budget = max_bytes + PROCESS_SLACK
        self._process_start = resident_bytes()

    def check_process(self, node=None) -> None:
        """Refuse when the process grew by more than the budget since the run started."""
        if self._process_start is None:
            return
        now = resident_bytes()
        if now is not None and now - self._process_start > self._process_budget:
            raise limit(f"the script uses too much memory: {(now - self._process_start) >> 20} "
                        f"MiB more than when it started (the limit is {self.max_bytes >> 20} MiB)",
                        node)

    def check_room(self, nbytes: int, node=None) -> None:
        """Refuse an allocation of ``nbytes`` that would take the counted memory past the budget
        (called before allocating, with the size computed from a shape)."""
        if self.total + nbytes > self.max_bytes:
            raise limit(
                f"too much tensor and array memory: {(self.total + nbytes) >> 20} MiB (the "
                f"limit is {self.max_bytes >> 20} MiB)", node)

    def track(self, tensor, node=None) -> None:
        self._count(tensor, tensor._data, node)

    def track_array(self, array, node=None) -> None:
        """A numpy array the script received (``np.ones``, ``np.outer``, ``a + b``...): counted
        with the tensors, once per memory block (``t.numpy()`` shares its tensor's)."""
        owner = _owner(array)
        self._count(owner if isinstance(owner, np.ndarray) else array, array, node)

    def _count(self, holder, array, node) -> None:
        owner = _owner(array)
        key = id(owner)
        if key in self._live:
            return
        nbytes = getattr(owner, "nbytes", array.nbytes)
        if self.total + nbytes > self.max_bytes:
            raise limit(
                f"too much tensor and array memory: {(self.total + nbytes) >> 20} MiB (the "
                f"limit is {self.max_bytes >> 20} MiB)", node)
        self.total += nbytes

        def release(_ref, key=key, nbytes=nbytes, live=self._live, meter=self):
            if live.pop(key, None) is not None:
                meter.total -= nbytes

        self._live[key] = weakref.ref(holder, release)

    def reset(self) -> None:
        self._live.clear()
        self.total = 0


def _owner(array):
    """The array that owns ``array``'s memory (itself, or the base of a chain of views)."""
    base = array.base
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return array if base is None else base


PROCESS_SLACK = 128 << 20
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """The process's resident memory (Linux ``/proc``; None where that is not available)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None
