"""Small numeric helpers the panels' models share: norms, heatmap scales, short array text."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def norm(a) -> float:
    """The Euclidean norm of all of ``a``'s elements, as a Python float."""
    a = np.asarray(a)
    return math.sqrt(float(np.vdot(a, a)))  # one numpy call: this runs per parameter per step


def heatmap_level(arrays: Iterable[np.ndarray | None]) -> float:
    """One symmetric colour scale for all heatmaps: [-level, level] (1.0 if all are zero)."""
    level = 0.0
    for a in arrays:
        if a is not None and a.size:
            finite = np.abs(a[np.isfinite(a)])
            if finite.size:
                level = max(level, float(finite.max()))
    return level or 1.0


def as_image(a: np.ndarray) -> np.ndarray:
    """A tensor as a 2-D image (rows x columns): scalars and vectors become one row."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, -1)
    return a.reshape(-1, a.shape[-1])


def format_array(a, max_items: int = 6, precision: int = 4) -> str:
    """Short text for a number or an array: all of a small one (nested by rows), the first items
    of a big one with its shape."""
    if a is None:
        return "None"
    arr = np.asarray(a)
    if arr.ndim == 0:
        return f"{float(arr):.{precision}g}"
    if arr.size <= max_items:
        return np.array2string(arr.astype(np.float64), separator=", ",
                               formatter={"float_kind": lambda x: f"{x:.{precision}g}"},
                               max_line_width=10_000).replace("\n", "")
    items = ", ".join(f"{float(x):.{precision}g}" for x in arr.ravel()[:max_items])
    return f"[{items}, … ({arr.size} values, shape {tuple(arr.shape)})]"
