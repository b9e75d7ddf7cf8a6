"""Training curves: loss, gradient norm per parameter and update-to-parameter ratio, one point
per backward() call (``TrainingHistory``).
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from ... import events
from ..state import named_tensors
from .arrays import norm
from .csv_export import Table


class _Series:
    """x and y values appended one at a time; ``array('d')`` keeps both append and read cheap."""

    __slots__ = ("xs", "ys")

    def __init__(self) -> None:
        self.xs = array("d")
        self.ys = array("d")

    def append(self, x: float, y: float) -> None:
        self.xs.append(x)
        self.ys.append(y)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.xs), np.array(self.ys)


class TrainingHistory:
    """Per backward call: the loss, each leaf's gradient norm and each update/parameter ratio.

    An iteration is one backward() call: it is the one event every training loop has.
    ``version`` grows with every change, so a plot redraws only when there is something new.
    """

    def __init__(self) -> None:
        self.loss = array("d")  # nan where backward() was called on a non-scalar
        self.grad_norms: dict[int, _Series] = {}  # id(tensor) -> (iteration, ‖grad‖)
        self.update_ratios: dict[int, _Series] = {}  # id(tensor) -> (iteration, ‖Δw‖/‖w‖)
        self.version = 0
        self._refs: dict[int, weakref.ref] = {}
        self._names: dict[int, str] = {}  # id(tensor) -> the display name learned (learn_names)
        self._written: list = []

    @classmethod
    def from_series(cls, loss, grad_norms: Mapping[str, tuple] = (),
                    update_ratios: Mapping[str, tuple] = ()) -> "TrainingHistory":
        """A history told by someone else (a replay): the loss per iteration and, per display
        name, ``(iterations, values)`` of the gradient norm and the update ratio."""
        history = cls()
        history.loss = array("d", (float(x) for x in loss))
        for table, given in ((history.grad_norms, grad_norms),
                             (history.update_ratios, update_ratios)):
            for name, (xs, ys) in dict(given).items():
                series = table[name] = _Series()
                series.xs, series.ys = array("d", map(float, xs)), array("d", map(float, ys))
        history.version = 1
        return history

    @property
    def iterations(self) -> int:
        return len(self.loss)

    def handle(self, event: events.Event) -> None:
        kind, p = event.kind, event.payload
        if kind == events.BACKWARD_STARTED:
            tensors = p.get("tensors", ())
            loss = float("nan")
            if len(tensors) == 1 and tensors[0]._data.size == 1:
                loss = float(tensors[0]._data.reshape(()))
            self.loss.append(loss)
            self._written = []
            self.version += 1
        elif kind == events.GRAD_ACCUMULATED:
            self._written.append(p["tensor"])
        elif kind == events.BACKWARD_FINISHED:
            it = len(self.loss) - 1
            for t in self._written:
                if t._grad is not None:
                    self._series(self.grad_norms, t).append(it, norm(t._grad._data))
            self._written = []
            self.version += 1
        elif kind == events.PARAM_UPDATED and self.loss:
            t, before = p["tensor"], p["before"]
            denom = norm(before)
            ratio = norm(t._data - before) / denom if denom else float("nan")
            self._series(self.update_ratios, t).append(len(self.loss) - 1, ratio)
            self.version += 1

    def _series(self, table, t) -> _Series:
        ref = self._refs.get(id(t))
        if ref is None or ref() is not t:  # a new tensor reusing a dead one's id
            self._refs[id(t)] = weakref.ref(t)
            self.grad_norms.pop(id(t), None)
            self.update_ratios.pop(id(t), None)
            self._names.pop(id(t), None)
        series = table.get(id(t))
        if series is None:
            series = table[id(t)] = _Series()
        return series

    def learn_names(self, names: Mapping[int, str]) -> bool:
        """Keep the display names ``names`` (``names_by_id`` of the live names) gives the
        curves' tensors: a model's parameters are named by the naming walk
        (``model.blocks.0.sa.proj.weight``) once at a point where the model is bound, and keep
        that name when the curves are drawn or told with the names of a point before it
        existed (the start of a run). ``version`` grows when a name changes, so the curves are
        told again; returns whether one did."""
        changed = False
        for key in (*self.grad_norms, *self.update_ratios):
            name = names.get(key)
            if name is not None and self._names.get(key) != name and self._alive(key):
                self._names[key] = name
                changed = True
        if changed:
            self.version += 1
        return changed

    def unnamed(self, names: Mapping[int, str]) -> bool:
        """Whether some live tensor of the curves has no name, in ``names`` or learned."""
        return any(key not in names and key not in self._names and self._alive(key)
                   for key in (*self.grad_norms, *self.update_ratios))

    def _alive(self, key) -> bool:
        ref = self._refs.get(key)
        return ref is not None and ref() is not None

    def series(self, table, names: Mapping[int, str]) -> dict[str, tuple]:
        """``table`` (grad_norms or update_ratios) as display name -> (x, y) arrays.

        ``names`` maps ``id(tensor)`` to display names (``names_by_id``); a tensor it does not
        know keeps the name it was last known by (``learn_names``), unless a tensor named now
        has it; the others are called ``param 1``, ``param 2``, ... A history made by
        ``from_series`` is keyed by display name already.
        """
        out = {}
        known = [key for key in names if key in table]  # the script's order, then the rest
        keys = known + [key for key in list(table) if key not in names]
        for k, key in enumerate(keys):
            data = table[key]
            if isinstance(key, str):  # named by whoever told the story
                if data.xs:
                    out[key] = data.arrays()
                continue
            ref = self._refs.get(key)
            if not data.xs or ref is None or ref() is None:
                continue
            label = names.get(key) or self._names.get(key)
            if label is None or label in out:
                label = f"param {k + 1}"
            out[label] = data.arrays()
        return out


FIRST_ITERATION = 1
"""What the plots and the CSV call the first backward() call, as the status bar does."""
LEGEND_ENTRIES = 8
"""Curves of a training plot with their own colour and legend entry: the largest. The others
share one grey entry, since a legend lays out every entry again for each one added (a ResNet's
hundreds of parameters took a plot's first paint from a second to a minute), and nobody tells
161 colours apart."""


def ranked(series: Mapping[str, tuple], k: int = LEGEND_ENTRIES) -> tuple[list, list]:
    """The names of ``series`` (name -> (xs, ys)) split into the ``k`` with the largest finite
    value, largest first, and the rest in their given order."""
    def peak(name) -> float:
        ys = np.asarray(series[name][1], dtype=np.float64)
        finite = ys[np.isfinite(ys)]
        return float(finite.max()) if finite.size else -np.inf

    names = list(series)
    if len(names) <= k:
        return sorted(names, key=lambda n: -peak(n)), []
    peaks = {name: peak(name) for name in names}
    top = sorted(names, key=lambda n: -peaks[n])[:k]
    chosen = set(top)
    return top, [n for n in names if n not in chosen]


def names_by_id(live: Mapping[str, Any]) -> dict[int, str]:
    """``id(tensor)`` -> display name for every tensor the script can name (first name wins)."""
    out: dict[int, str] = {}
    for name, t in named_tensors(live).items():
        out.setdefault(id(t), name)
    return out


def training_table(history: TrainingHistory, names: Mapping[int, str]) -> Table:
    norms = history.series(history.grad_norms, names)
    ratios = history.series(history.update_ratios, names)
    header = (("iteration", "loss") + tuple(f"grad_norm[{n}]" for n in norms)
              + tuple(f"update_ratio[{n}]" for n in ratios))
    columns = []
    for xs, ys in list(norms.values()) + list(ratios.values()):
        col = np.full(history.iterations, np.nan)
        col[xs.astype(int)] = ys
        columns.append(col)
    rows = [(i + FIRST_ITERATION, history.loss[i], *(float(c[i]) for c in columns))
            for i in range(history.iterations)]
    return header, rows
