"""``StateDiff``: what changed between two pauses, so that views redraw only that."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .state import Snapshot, TensorRecord, same_array


@dataclass(frozen=True)
class TensorChange:
    """One change to a named tensor.

    Attributes
    ----------
    name : str
        The tensor's display name.
    field : str
        ``"value"`` or ``"grad"``.
    change : str
        ``"new"`` (the name appeared), ``"removed"``, ``"changed"`` (same shape, new numbers),
        ``"reshaped"``, ``"created"`` (grad was None, now set), ``"none"`` (grad became None),
        ``"zeros"`` (grad became all zeros), ``"flags"`` (requires_grad / grad_fn changed).
    max_abs_change : float or None
        Largest absolute elementwise change when the shapes match, else None.
    """

    name: str
    field: str
    change: str
    max_abs_change: float | None = None


@dataclass(frozen=True)
class OptimizerChange:
    """An optimizer's state entry that appeared or changed (``exp_avg`` of ``w``, ...)."""

    optimizer: str  # the script's name for it
    param: str  # the parameter's display name
    key: str  # the state entry: "exp_avg", "momentum_buffer", ...
    max_abs_change: float | None = None  # None when the entry is new or changed shape


@dataclass(frozen=True)
class StateDiff:
    """What changed since the previous pause.

    ``full``: the views should redraw everything (after a restart or a jump in time); the
    changes are then relative to an empty state and ``console`` holds every line so far.
    """

    tensors: tuple = ()  # TensorChange, per name and field
    backward_steps: tuple = ()  # the BackwardStep nodes executed since, in order
    optimizer: tuple = ()  # OptimizerChange
    console: tuple = ()  # the lines printed since
    full: bool = False

    @property
    def nodes_executed(self) -> tuple:
        """PyTorch's names of the backward nodes executed, in order."""
        return tuple(step.node.name() for step in self.backward_steps)

    @property
    def changed_names(self) -> tuple:
        return tuple(dict.fromkeys(c.name for c in self.tensors))

    def grad_changes(self) -> tuple:
        return tuple(c for c in self.tensors if c.field == "grad")

    def value_changes(self) -> tuple:
        return tuple(c for c in self.tensors if c.field == "value")

    @property
    def grads_became_none(self) -> tuple:
        return tuple(c.name for c in self.tensors if c.field == "grad" and c.change == "none")

    @property
    def grads_became_zeros(self) -> tuple:
        return tuple(c.name for c in self.tensors if c.field == "grad" and c.change == "zeros")

    @property
    def is_empty(self) -> bool:
        return not (self.tensors or self.backward_steps or self.optimizer or self.console)


def _max_abs(before: np.ndarray, after: np.ndarray) -> float | None:
    if before.shape != after.shape:
        return None
    if before.size == 0:
        return 0.0
    if before.dtype.kind == "b":
        return float(np.count_nonzero(before != after) > 0)
    before = np.atleast_1d(before).astype(np.float64)
    after = np.atleast_1d(after).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        delta = np.abs(after - before)
    # NaN appearing or vanishing counts as an infinite change, not as "unchanged".
    delta[np.isnan(before) != np.isnan(after)] = np.inf
    delta[np.isnan(delta)] = 0.0
    return float(delta.max())


def _tensor_changes(name: str, before: TensorRecord | None, after: TensorRecord | None) -> list:
    if before is None:
        out = [TensorChange(name, "value", "new")]
        if after.grad is not None:
            out.append(TensorChange(name, "grad", "created"))
        return out
    if after is None:
        return [TensorChange(name, "value", "removed")]
    if before is after:
        return []
    out = []
    if not same_array(before.value, after.value):
        kind = "changed" if before.value.shape == after.value.shape else "reshaped"
        out.append(TensorChange(name, "value", kind, _max_abs(before.value, after.value)))
    if not same_array(before.grad, after.grad):
        if after.grad is None:
            out.append(TensorChange(name, "grad", "none"))
        elif before.grad is None:
            out.append(TensorChange(name, "grad", "created", _max_abs(np.zeros_like(after.grad),
                                                                      after.grad)))
        elif not after.grad.any() and before.grad.any():
            out.append(TensorChange(name, "grad", "zeros", _max_abs(before.grad, after.grad)))
        else:
            out.append(TensorChange(name, "grad", "changed", _max_abs(before.grad, after.grad)))
    flags = ("requires_grad", "retains_grad", "grad_fn", "is_leaf")
    if any(getattr(before, f) != getattr(after, f) for f in flags):
        out.append(TensorChange(name, "value", "flags"))
    return out


def _optimizer_changes(before: dict, after: dict) -> list:
    out = []
    for key, value in after.items():
        old = before.get(key, _MISSING)
        if old is value:
            continue
        if isinstance(value, np.ndarray):
            if isinstance(old, np.ndarray) and same_array(old, value):
                continue
            delta = _max_abs(old, value) if isinstance(old, np.ndarray) else None
        else:
            if old == value:
                continue
            delta = abs(value - old) if isinstance(value, (int, float)) and isinstance(
                old, (int, float)) else None
        out.append(OptimizerChange(*key, max_abs_change=delta))
    return out


_MISSING = object()


def compute_diff(
    before: Snapshot | None,
    after: Snapshot,
    backward_steps=(),
    console=(),
    full: bool = False,
) -> StateDiff:
    """The ``StateDiff`` from ``before`` (None: an empty state) to ``after``."""
    prev = before.tensors if before is not None else {}
    changes: list = []
    for name, record in after.tensors.items():
        changes.extend(_tensor_changes(name, prev.get(name), record))
    for name in prev:
        if name not in after.tensors:
            changes.extend(_tensor_changes(name, prev[name], None))
    opt = _optimizer_changes(before.optimizer if before is not None else {}, after.optimizer)
    return StateDiff(tuple(changes), tuple(backward_steps), tuple(opt), tuple(console), full)
