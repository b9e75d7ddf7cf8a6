"""Two timeline points compared: every named tensor's value and grad, every Python number the
script has bound, and the optimizers' state (``compare``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..state import Snapshot, TensorRecord
from .arrays import format_array, norm
from .buffers import has_buffer
from .csv_export import Table

SMALL = 3
"""Arrays up to this many values are written out in a row's summary (``0.25 → inf``)."""


@dataclass(frozen=True)
class DeltaRow:
    what: str  # "parameter", "tensor", "grad", "number" or "optimizer state"
    name: str  # "w", "model.fc1.weight", "it", "optimizer: w.exp_avg"
    a: np.ndarray | None
    b: np.ndarray | None
    delta: np.ndarray | None  # b - a; None where one side is None or the shapes differ
    norm: float | None
    max_abs: float | None
    missing: str = "None"  # how a side that is None reads: a grad's "None", a name's "unbound"

    @property
    def changed(self) -> bool:
        """Whether anything differs: None → None and NaN → NaN are unchanged."""
        if self.a is None or self.b is None:
            return (self.a is None) != (self.b is None)
        return self.a.shape != self.b.shape or not np.array_equal(self.a, self.b, equal_nan=True)

    @property
    def summary(self) -> str:
        if not self.changed:
            return "unchanged"
        small = all(x is None or x.size <= SMALL for x in (self.a, self.b))
        if self.delta is None or small or not np.isfinite(self.delta).all():
            return f"{self._describe(self.a)} → {self._describe(self.b)}"
        return f"|Δ| = {self.norm:.4g}, max |Δ| = {self.max_abs:.4g}"

    def _describe(self, a) -> str:
        if a is None:
            return self.missing
        if a.size <= SMALL:
            return format_array(a)
        bad = int(a.size - np.isfinite(a).sum())
        return f"shape {tuple(a.shape)}" + (f" with {bad} NaN/Inf" if bad else "")


def _as_array(v) -> np.ndarray | None:
    if v is None or isinstance(v, str):
        return None
    return np.asarray(v, dtype=np.float64)


def _row(what: str, name: str, a, b, missing: str = "None") -> DeltaRow:
    x, y = _as_array(a), _as_array(b)
    if x is None or y is None or x.shape != y.shape:
        return DeltaRow(what, name, x, y, None, None, None, missing)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, as it should read
        d = y - x
    return DeltaRow(what, name, x, y, d, norm(d), float(np.abs(d).max()) if d.size else 0.0,
                    missing)


def _names(da: dict, db: dict) -> list:
    """The names of both points: ``a``'s in its order, then those only ``b`` has."""
    return list(da) + [n for n in db if n not in da]


def _is_parameter(record: TensorRecord) -> bool:
    return record.is_leaf and record.requires_grad


def compare(a: Snapshot, b: Snapshot) -> list[DeltaRow]:
    """Every row from point ``a`` to point ``b``, changed or not (``DeltaRow.changed``):
    parameters, then the other named tensors, their grads (where a ``.grad`` can exist),
    the Python numbers bound, and the optimizers' state."""
    ta, tb = a.tensors, b.tensors
    names = _names(ta, tb)

    def kind(name):
        record = ta.get(name) or tb.get(name)
        return "parameter" if _is_parameter(record) else "tensor"

    rows = [_row(kind(n), n, getattr(ta.get(n), "value", None), getattr(tb.get(n), "value", None),
                 "unbound")
            for what in ("parameter", "tensor") for n in names if kind(n) == what]
    rows += [_row("grad", n, getattr(ta.get(n), "grad", None), getattr(tb.get(n), "grad", None))
             for n in names if any(r is not None and has_buffer(r) for r in (ta.get(n), tb.get(n)))]
    rows += [_row("number", n, a.scalars.get(n), b.scalars.get(n), "unbound")
             for n in _names(a.scalars, b.scalars)]
    states = tuple({f"{k[0]}: {k[1]}.{k[2]}": v for k, v in s.optimizer.items()} for s in (a, b))
    rows += [_row("optimizer state", n, states[0].get(n), states[1].get(n))
             for n in _names(*states)]
    return rows


def compare_table(rows: Iterable[DeltaRow]) -> Table:
    return (("what", "name", "delta norm", "max abs delta", "a", "b", "delta"),
            [(r.what, r.name, r.norm, r.max_abs, r.a, r.b, r.delta) for r in rows])
