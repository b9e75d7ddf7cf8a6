"""What the user can see at a pause, copied out of the live engine: the ``Snapshot``.

A snapshot holds private copies of every named tensor's value and grad, of the optimizers' state
and of plain scalars. Records are immutable and shared with the previous snapshot when nothing
changed, so a long timeline costs memory only for what actually changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import naming
from ..tensor import Tensor


@dataclass(frozen=True, eq=False)
class TensorRecord:
    """A tensor as it was at one pause: copies of its value and grad, and its autograd flags."""

    value: np.ndarray
    grad: np.ndarray | None
    requires_grad: bool
    is_leaf: bool
    retains_grad: bool
    grad_fn: str | None

    @property
    def shape(self) -> tuple:
        return tuple(self.value.shape)

    @property
    def dtype(self) -> str:
        return f"torch.{self.value.dtype.name}"

    @property
    def nbytes(self) -> int:
        return self.value.nbytes + (0 if self.grad is None else self.grad.nbytes)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The visible state at one pause.

    Attributes
    ----------
    tensors : dict
        Display name (``w``, ``model.fc1.weight``, ``params[0]``, ``d['w']``: the names of
        ``engine.naming``, as the graph's) -> ``TensorRecord``.
    optimizer : dict
        ``(optimizer name, parameter name, state key)`` -> copied value (array or Python scalar).
    scalars : dict
        Name -> int, float or bool bound at that pause (``epoch``, ``lr``, ``running_loss``).
    console_lines : int
        How many console lines had been printed by then.
    """

    tensors: dict = field(default_factory=dict)
    optimizer: dict = field(default_factory=dict)
    scalars: dict = field(default_factory=dict)
    console_lines: int = 0

    def flat(self) -> dict:
        """One dict keyed by ``("t", name)``, ``("o", opt, param, key)``, ``("s", name)``."""
        out: dict = {("t", k): v for k, v in self.tensors.items()}
        out.update((("o",) + k, v) for k, v in self.optimizer.items())
        out.update((("s", k), v) for k, v in self.scalars.items())
        return out

    @classmethod
    def from_flat(cls, flat: Mapping, console_lines: int) -> "Snapshot":
        tensors, optimizer, scalars = {}, {}, {}
        for key, value in flat.items():
            if key[0] == "t":
                tensors[key[1]] = value
            elif key[0] == "o":
                optimizer[key[1:]] = value
            else:
                scalars[key[1]] = value
        return cls(tensors, optimizer, scalars, console_lines)


def is_module(value: Any) -> bool:
    """An engine ``nn.Module``, recognised by type (``engine.naming``)."""
    return naming.is_module(value)


def is_optimizer(value: Any) -> bool:
    """An engine ``optim.Optimizer``, recognised by type (``engine.naming``)."""
    return naming.is_optimizer(value)


def visible_names(globals_: Mapping | None, locals_: Mapping | None) -> dict:
    """The script's names the user sees at a pause: the frame's locals over the module's globals."""
    names: dict = {}
    for scope in (globals_, locals_):
        if not scope:
            continue
        for name, value in list(scope.items()):
            if not name.startswith("__"):
                names[name] = value
    return names


def named_tensors(names: Mapping) -> dict:
    """Display name -> Tensor: every tensor reachable by name, each once, named by the shared
    walk (``engine.naming``: ``w``, ``d['w']``, ``params[0]``, ``model.fc1.weight``)."""
    return naming.walk(names).by_name()


def optimizers(names: Mapping) -> dict:
    """Name -> engine optimizer reachable from ``names`` (bound, or inside a container)."""
    return {e.name: e.optimizer for e in naming.walk(names).optimizers}


def _copy(array: np.ndarray) -> np.ndarray:
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


_BYTES_COMPARED = 1 << 16
"""Arrays up to this many elements are compared by their bytes first (a snapshot compares every
named tensor at every statement a run passes; ``array_equal`` costs microseconds even on a
4-element array)."""


_LISTS_COMPARED = 256
"""Arrays whose bytes differ, up to this many elements, are compared as Python lists: a tenth of
``array_equal``'s cost on the small tensors a tutorial steps through, most of whose statements
change a value."""


def same_array(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    if a is b:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    kind = a.dtype.kind
    if a.size <= _BYTES_COMPARED:
        if a.tobytes() == b.tobytes():
            return True  # the same bytes are the same numbers
        if kind in "iu":
            return False  # and for integers, other bytes are other numbers
        if a.size <= _LISTS_COMPARED:
            # Python's == on the numbers is IEEE's (-0.0 == 0.0, any bool byte is True); only
            # NaNs, never equal to themselves, need the second look
            x, y = a.ravel().tolist(), b.ravel().tolist()
            return x == y or all(p == q or (p != p and q != q) for p, q in zip(x, y))
    # floats: -0.0 == 0.0, NaNs of any payload are the same; bools may hold any nonzero byte
    return bool(np.array_equal(a, b, equal_nan=kind in "fc"))


def record_of(t: Tensor, previous: TensorRecord | None) -> TensorRecord:
    """A record of ``t``; ``previous`` itself when nothing the user sees has changed."""
    grad = t._grad._data if t._grad is not None else None  # _grad: .grad would warn on non-leaves
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    value = previous.value if previous is not None and same_array(previous.value, t._data) else None
    if (
        value is not None
        and previous.requires_grad == t.requires_grad
        and previous.retains_grad == t._retains_grad
        and previous.grad_fn == grad_fn
        and same_array(previous.grad, grad)
    ):
        return previous
    return TensorRecord(
        value=_copy(t._data) if value is None else value,
        grad=None if grad is None else _copy(grad),
        requires_grad=t.requires_grad,
        is_leaf=t.grad_fn is None,
        retains_grad=t._retains_grad,
        grad_fn=grad_fn,
    )


def _state_value(value: Any, previous: Any) -> Any:
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        if isinstance(previous, np.ndarray) and same_array(previous, value):
            return previous
        return _copy(value)
    if isinstance(value, (int, float, bool, np.number)):
        return value.item() if isinstance(value, np.number) else value
    return repr(value)


def optimizer_entries(walked: naming.Naming, previous: Mapping) -> dict:
    """``(optimizer, param, key)`` -> copied state value, naming params by the walk's names."""
    out: dict = {}
    for opt in walked.optimizers:
        for _, pname, key, value in walked.optimizer_state(opt.optimizer):
            k = (opt.name, pname, key)
            out[k] = _state_value(value, previous.get(k))
    return out


def _scalars(names: Mapping) -> dict:
    return {
        name: value
        for name, value in names.items()
        if isinstance(value, (int, float, bool)) and not isinstance(value, type)
    }


def capture(
    globals_: Mapping | None,
    locals_: Mapping | None,
    previous: Snapshot | None = None,
    console_lines: int = 0,
    *,
    names: Mapping | None = None,
    walked: naming.Naming | None = None,
) -> Snapshot:
    """Copy what the user sees out of the live namespaces, sharing unchanged records.

    ``names`` (``visible_names(globals_, locals_)``) and ``walked`` (``naming.walk(names)``),
    when the caller has them already, are not made again.
    """
    if names is None:
        names = visible_names(globals_, locals_)
    if walked is None:
        walked = naming.walk(names)
    prev_t = previous.tensors if previous is not None else {}
    records = {e.name: record_of(e.tensor, prev_t.get(e.name)) for e in walked.tensors}
    prev_o = previous.optimizer if previous is not None else {}
    opt = optimizer_entries(walked, prev_o)
    return Snapshot(records, opt, _scalars(names), console_lines)


def non_finite(array: np.ndarray | None) -> bool:
    """True when a floating array holds a NaN or an infinity."""
    return array is not None and array.dtype.kind in "fc" and not bool(np.isfinite(array).all())


def parameters_of(names: Mapping) -> dict:
    """Display name -> Tensor for the parameters the script trains (in modules or optimizers)."""
    return {e.name: e.tensor for e in naming.walk(names).tensors if e.parameter}
