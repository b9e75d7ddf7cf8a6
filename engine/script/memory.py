"""``MemoryMeter``: the bytes of tensor memory a script holds, for ``Limits.max_total_bytes``."""

from __future__ import annotations

import weakref

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

    def track(self, tensor, node=None) -> None:
        array = tensor._data
        owner = array if array.base is None else array.base
        key = id(owner)
        if key in self._live:
            return
        nbytes = getattr(owner, "nbytes", array.nbytes)
        if self.total + nbytes > self.max_bytes:
            raise limit(
                f"too much tensor memory: {(self.total + nbytes) >> 20} MiB (the limit is "
                f"{self.max_bytes >> 20} MiB)", node)
        self.total += nbytes

        def release(_ref, key=key, nbytes=nbytes, live=self._live, meter=self):
            if live.pop(key, None) is not None:
                meter.total -= nbytes

        self._live[key] = weakref.ref(tensor, release)

    def reset(self) -> None:
        self._live.clear()
        self.total = 0
