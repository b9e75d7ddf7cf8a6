"""Torch tensors to numpy arrays, and the size budget that keeps recorded files sane.

A real model's activations and parameters can hold millions of numbers; a graph file may hold at
most 4,000,000 per array and 16,000,000 in all (``engine.files.ReadLimits``). The recorder keeps
every array up to ``max_array_elements`` until ``max_total_elements`` are spent, and for the rest
writes summary statistics instead, so a NaN or a huge norm is still visible where it happened.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..files.codec import DTYPES

DEFAULT_MAX_ARRAY_ELEMENTS = 1 << 20
DEFAULT_MAX_TOTAL_ELEMENTS = 4_000_000
SMALL_SAVED_ELEMENTS = 64
"""Saved tensors up to this size keep their values in the node's attributes."""


def to_numpy(tensor) -> np.ndarray:
    """A copy of a torch tensor's data as a numpy array of a dtype graph files know.

    bfloat16 and other dtypes that numpy or the file format lack become float32. Complex tensors
    raise TypeError: no graph-file dtype can hold them.
    """
    t = tensor.detach()
    if t.is_complex():
        raise TypeError("complex tensors are not recorded")
    if t.device.type != "cpu":
        t = t.cpu()
    name = str(t.dtype).removeprefix("torch.")
    if name not in DTYPES:
        t = t.float()
    # A copy: the hooks see buffers that autograd may still add into in place.
    return np.array(t.numpy(), copy=True)


def stats(array: np.ndarray) -> dict:
    """JSON-ready summary of an array: enough to spot NaNs, explosions and dead gradients."""
    out = {"shape": list(array.shape), "dtype": array.dtype.name, "size": int(array.size)}
    if array.size == 0 or array.dtype.kind not in "fiub":
        return out
    a = array.astype(np.float64, copy=False)
    finite = np.isfinite(a)
    out["nan"] = int(np.isnan(a).sum())
    out["inf"] = int(np.isinf(a).sum())
    if finite.any():
        f = a[finite]
        out.update(min=float(f.min()), max=float(f.max()), mean=float(f.mean()),
                   norm=float(np.sqrt((f * f).sum())))
    return out


@dataclass
class Budget:
    """How many array elements a recording may still write, and the largest single array.

    Parameters
    ----------
    max_array_elements : int
        Arrays larger than this are summarised, not written.
    max_total_elements : int
        Once this many elements are written, further arrays are summarised.
    """

    max_array_elements: int = DEFAULT_MAX_ARRAY_ELEMENTS
    max_total_elements: int = DEFAULT_MAX_TOTAL_ELEMENTS
    spent: int = 0
    omitted: int = 0

    def keep(self, array: np.ndarray | None) -> np.ndarray | None:
        """``array`` if it fits (and is charged to the budget), else None."""
        if array is None:
            return None
        if array.size > self.max_array_elements or self.spent + array.size > \
                self.max_total_elements:
            self.omitted += 1
            return None
        self.spent += array.size
        return array
