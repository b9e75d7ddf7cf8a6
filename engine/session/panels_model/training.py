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


NO_GRAD = -1.0
"""A gradient norm that stands for "no grad": the parameter's ``.grad`` was None when its
optimizer stepped (a frozen layer, a ``.detach()`` on the path). A norm is never negative, and
the value crosses to the window as a plain float with the others."""


class TrainingHistory:
    """Per backward call: the loss, each leaf's gradient norm and each update/parameter ratio.

    An iteration is one backward() call: it is the one event every training loop has.
    ``version`` grows with every change, so a plot redraws only when there is something new.

    A series is keyed by ``id(tensor)`` while its tensor lives; one whose id a new tensor
    takes, or whose parameter a new optimizer steps (the script trains again), is kept under a
    retired key with the name it had, so the earlier run's curves stay (``run_starts``).
    """

    def __init__(self) -> None:
        self.loss = array("d")  # nan where backward() was called on a non-scalar
        self.grad_norms: dict = {}  # id(tensor) -> (iteration, ‖grad‖ or NO_GRAD)
        self.update_ratios: dict = {}  # id(tensor) -> (iteration, ‖Δw‖/‖w‖)
        self.version = 0
        self._refs: dict = {}  # key -> weakref to the tensor
        self._names: dict = {}  # key -> the display name learned (learn_names)
        self._owners: dict[int, weakref.ref] = {}  # id(tensor) -> the optimizer stepping it
        self._retired = 0
        self._written: list = []
        self._stepped: set[int] = set()  # id(optimizer) of those that stepped since backward

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
            self._stepped = set()
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
            t, before, optimizer = p["tensor"], p["before"], p.get("optimizer")
            it = len(self.loss) - 1
            if optimizer is not None and id(optimizer) not in self._stepped:
                self._stepped.add(id(optimizer))
                self._note_unwritten(optimizer, it)
            owner = self._owners.get(id(t))
            if optimizer is not None and (owner is None or owner() is not optimizer):
                if owner is not None and id(t) in self.update_ratios:  # a new optimizer
                    self._retire(self.update_ratios, id(t))
                self._owners[id(t)] = weakref.ref(optimizer)
            ratio = update_ratio(before, t._data)
            if ratio is not None:
                self._series(self.update_ratios, t).append(it, ratio)
            self.version += 1

    def _note_unwritten(self, optimizer, it: int) -> None:
        """The norm of each parameter of ``optimizer`` that this backward did not write, as
        ``[p.grad.norm() for p in params]`` would: NO_GRAD for a None grad (step() skips it),
        the grad kept from before otherwise (zeros after ``zero_grad(set_to_none=False)``)."""
        for group in getattr(optimizer, "param_groups", ()):
            for param in group.get("params", ()):
                series = self.grad_norms.get(id(param))
                if series is not None and series.xs and series.xs[-1] == it \
                        and self._refs[id(param)]() is param:
                    continue  # written by this backward
                grad = param._grad
                value = NO_GRAD if grad is None else norm(grad._data)
                self._series(self.grad_norms, param).append(it, value)

    def _series(self, table, t) -> _Series:
        ref = self._refs.get(id(t))
        if ref is None or ref() is not t:  # a new tensor reusing a dead one's id
            if ref is not None:
                for old in (self.grad_norms, self.update_ratios):
                    self._retire(old, id(t))
                self._names.pop(id(t), None)
                self._owners.pop(id(t), None)
            self._refs[id(t)] = weakref.ref(t)
        series = table.get(id(t))
        if series is None:
            series = table[id(t)] = _Series()
        return series

    def _retire(self, table, key: int) -> None:
        """Keep ``table``'s series of ``key`` under a key of its own, with its learned name."""
        series = table.pop(key, None)
        if series is None or not series.xs:
            return
        self._retired += 1
        retired = ("retired", key, self._retired)
        table[retired] = series
        self._refs[retired] = self._refs[key]
        if key in self._names:
            self._names[retired] = self._names[key]

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
        return any(isinstance(key, int) and key not in names and key not in self._names
                   and self._alive(key) for key in (*self.grad_norms, *self.update_ratios))

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
        starts = None
        for k, key in enumerate(keys):
            data = table[key]
            if isinstance(key, str):  # named by whoever told the story
                if data.xs:
                    out[key] = data.arrays()
                continue
            if not data.xs:
                continue
            if isinstance(key, int) and self._alive(key):
                label = names.get(key) or self._names.get(key) or f"param {k + 1}"
            else:  # a tensor gone, or a run before: the name it had, if it was ever named
                label = self._names.get(key)
                if label is None:
                    continue
            if label in out:  # the same name in two runs: say which
                starts = self.run_starts() if starts is None else starts
                run = 1 + sum(1 for s in starts if s <= data.xs[0])
                label = f"{label} (run {run})" if starts else label
                if label in out:
                    label = f"param {k + 1}"
            out[label] = data.arrays()
        return out

    def run_starts(self) -> list[int]:
        """The iterations (0-based) where a new training run starts: the script trained a
        second model, or the same one with a new optimizer, after the first was done.

        Runs are told apart by what they train, so the window finds them in the curves it was
        told: where no optimizer's (parameter, optimizer) series spans the cut and either the
        update ratios change hands there or, without ratios on both sides, no gradient-norm
        series spans it either. Two optimizers stepping in turn (a GAN) are one run."""
        ratio_spans = _merged(self.update_ratios)
        cuts = {a[1] + 1 for a, _ in zip(ratio_spans, ratio_spans[1:])}
        for a, _ in zip(grad_spans := _merged(self.grad_norms), grad_spans[1:]):
            cut = a[1] + 1
            if not any(first < cut <= last for first, last in ratio_spans):
                cuts.add(cut)
        return sorted(c for c in cuts if 0 < c < self.iterations)


def _merged(table) -> list[tuple[int, int]]:
    """The iterations ``table``'s series cover, as (first, last) spans merged where they share
    an iteration."""
    spans = sorted((int(s.xs[0]), int(s.xs[-1])) for s in table.values() if s.xs)
    merged: list[list[int]] = []
    for first, last in spans:
        if merged and first <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return [(a, b) for a, b in merged]


def update_ratio(before: np.ndarray, after: np.ndarray) -> float | None:
    """‖after − before‖ / ‖before‖, the update-to-parameter ratio PyTorch users log; None
    where it says nothing: a parameter at zero before the step (a BatchNorm or Linear bias
    that starts at 0, where any update is infinitely large), or a non-finite one."""
    denom = norm(before)
    if not denom or not np.isfinite(denom):
        return None
    ratio = norm(after - before) / denom
    return ratio if np.isfinite(ratio) else None


RATIO_TIP = ("‖w_after − w_before‖ / ‖w_before‖ at each optimizer.step(); no point while "
             "‖w_before‖ = 0 (a bias that starts at zero), where no ratio is defined")


def no_grad_names(series: Mapping[str, tuple]) -> list[str]:
    """The names in ``series`` (name -> (xs, ys) of gradient norms) whose latest point is
    NO_GRAD: parameters whose .grad was None when their optimizer last stepped."""
    return [name for name, (_, ys) in series.items() if len(ys) and ys[-1] == NO_GRAD]


def drawable(series: Mapping[str, tuple]) -> dict[str, tuple]:
    """``series`` as plots draw them: NO_GRAD and non-finite points left out (a gap in the
    line), series with no point left dropped."""
    out = {}
    for name, (xs, ys) in series.items():
        ys = np.asarray(ys, dtype=np.float64)
        keep = np.isfinite(ys) & (ys != NO_GRAD)
        if keep.all():
            out[name] = (xs, ys)
        elif keep.any():
            out[name] = (xs, np.where(keep, ys, np.nan))
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
    """The curves as a table: a row per iteration, a column per series; "None" where a
    parameter's .grad was None (NO_GRAD), nan where a series has no point; with a "run"
    column when the script trained more than once (``run_starts``)."""
    norms = history.series(history.grad_norms, names)
    ratios = history.series(history.update_ratios, names)
    starts = history.run_starts()
    header = (("iteration", "loss") + tuple(f"grad_norm[{n}]" for n in norms)
              + tuple(f"update_ratio[{n}]" for n in ratios) + (("run",) if starts else ()))
    columns = []
    for xs, ys in list(norms.values()) + list(ratios.values()):
        col = np.full(history.iterations, np.nan)
        col[xs.astype(int)] = ys
        columns.append(col)
    runs = np.searchsorted(np.array(starts, dtype=np.int64), np.arange(history.iterations),
                           side="right") + 1
    rows = [(i + FIRST_ITERATION, history.loss[i], *(_cell(c[i]) for c in columns),
             *((int(runs[i]),) if starts else ())) for i in range(history.iterations)]
    return header, rows


def _cell(value: float):
    return None if value == NO_GRAD else float(value)
