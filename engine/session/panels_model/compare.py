"""Two timeline points compared: Δparameter, Δgrad and Δoptimizer-state (``compare``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..state import Snapshot
from .arrays import format_array, norm
from .buffers import has_buffer
from .csv_export import Table


@dataclass(frozen=True)
class DeltaRow:
    what: str  # "parameter", "grad" or "optimizer state"
    name: str  # "w", "model.fc1.weight", "optimizer: w.exp_avg"
    a: np.ndarray | None
    b: np.ndarray | None
    delta: np.ndarray | None  # b - a; None where one side is None or the shapes differ
    norm: float | None
    max_abs: float | None

    @property
    def summary(self) -> str:
        if self.delta is None:
            return f"{_describe(self.a)} → {_describe(self.b)}"
        if not np.any(self.delta):
            return "unchanged"
        return f"|Δ| = {self.norm:.4g}, max |Δ| = {self.max_abs:.4g}"


def _describe(a) -> str:
    if a is None:
        return "None"
    return format_array(a) if a.size <= 3 else f"shape {tuple(a.shape)}"


def _as_array(v) -> np.ndarray | None:
    if v is None or isinstance(v, str):
        return None
    return np.asarray(v, dtype=np.float64)


def compare(a: Snapshot, b: Snapshot) -> list[DeltaRow]:
    """Δparameter, Δgrad and Δoptimizer-state from point ``a`` to point ``b``, in that order."""
    def buffers(s):
        return {n: r for n, r in s.tensors.items() if has_buffer(r)}

    ta, tb = buffers(a), buffers(b)
    values = ({n: r.value for n, r in ta.items()}, {n: r.value for n, r in tb.items()})
    grads = ({n: r.grad for n, r in ta.items()}, {n: r.grad for n, r in tb.items()})
    states = tuple({f"{k[0]}: {k[1]}.{k[2]}": v for k, v in s.optimizer.items()} for s in (a, b))
    rows = []
    for what, (da, db) in (("parameter", values), ("grad", grads), ("optimizer state", states)):
        for name in list(da) + [n for n in db if n not in da]:
            x, y = _as_array(da.get(name)), _as_array(db.get(name))
            if x is not None and y is not None and x.shape == y.shape:
                d = y - x
                rows.append(DeltaRow(what, name, x, y, d, norm(d),
                                     float(np.abs(d).max()) if d.size else 0.0))
            else:
                rows.append(DeltaRow(what, name, x, y, None, None, None))
    return rows


def compare_table(rows: Iterable[DeltaRow]) -> Table:
    return (("what", "name", "delta norm", "max abs delta", "a", "b", "delta"),
            [(r.what, r.name, r.norm, r.max_abs, r.a, r.b, r.delta) for r in rows])
