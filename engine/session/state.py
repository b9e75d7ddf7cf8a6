"""What the user can see at a pause, copied out of the live engine: the ``Snapshot``.

A snapshot holds private copies of every named tensor's value and grad, of the optimizers' state
and of plain scalars. Records are immutable and shared with the previous snapshot when nothing
changed, so a long timeline costs memory only for what actually changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..tensor import Tensor

# Containers of tensors are listed element by element only up to this length: a dataset held in a
# Python list is not what the debugger's panels show.
_MAX_LISTED = 64


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
        Display name (``w``, ``model.fc1.weight``, ``params[0]``) -> ``TensorRecord``.
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
    return callable(getattr(value, "named_parameters", None)) and hasattr(value, "_modules")


def is_optimizer(value: Any) -> bool:
    return hasattr(value, "param_groups") and hasattr(value, "state") and not is_module(value)


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
    """Display name -> Tensor for tensors bound to names, inside modules, lists and tuples."""
    out: dict = {}
    for name, value in names.items():
        if isinstance(value, Tensor):
            out.setdefault(name, value)
        elif is_module(value):
            try:
                params = list(value.named_parameters())
            except Exception:  # noqa: BLE001 - a half-built module must not break the debugger
                params = []
            for pname, p in params:
                out.setdefault(f"{name}.{pname}", p)
        elif isinstance(value, (list, tuple)) and 0 < len(value) <= _MAX_LISTED:
            for i, item in enumerate(value):
                if isinstance(item, Tensor):
                    out.setdefault(f"{name}[{i}]", item)
    return out


def optimizers(names: Mapping) -> dict:
    return {name: value for name, value in names.items() if is_optimizer(value)}


def _copy(array: np.ndarray) -> np.ndarray:
    out = np.array(array, copy=True)
    out.flags.writeable = False
    return out


def same_array(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))


def record_of(t: Tensor, previous: TensorRecord | None) -> TensorRecord:
    """A record of ``t``; ``previous`` itself when nothing the user sees has changed."""
    grad = t._grad._data if t._grad is not None else None  # _grad: .grad would warn on non-leaves
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    if (
        previous is not None
        and previous.requires_grad == t.requires_grad
        and previous.retains_grad == t._retains_grad
        and previous.grad_fn == grad_fn
        and same_array(previous.value, t._data)
        and same_array(previous.grad, grad)
    ):
        return previous
    value = previous.value if previous is not None and same_array(previous.value, t._data) else None
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


def optimizer_entries(opts: Mapping, tensor_names: Mapping, previous: Mapping) -> dict:
    """``(optimizer, param, key)`` -> copied state value, naming params by their display names."""
    by_id = {}
    for name, t in tensor_names.items():
        by_id.setdefault(id(t), name)
    out: dict = {}
    for opt_name, opt in opts.items():
        for g, group in enumerate(opt.param_groups):
            for i, p in enumerate(group.get("params", ())):
                pname = by_id.get(id(p), f"param_groups[{g}].params[{i}]")
                state = opt.state.get(p) if hasattr(opt.state, "get") else None
                for key, value in (state or {}).items():
                    k = (opt_name, pname, str(key))
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
) -> Snapshot:
    """Copy what the user sees out of the live namespaces, sharing unchanged records."""
    names = visible_names(globals_, locals_)
    tensors = named_tensors(names)
    prev_t = previous.tensors if previous is not None else {}
    records = {name: record_of(t, prev_t.get(name)) for name, t in tensors.items()}
    prev_o = previous.optimizer if previous is not None else {}
    opt = optimizer_entries(optimizers(names), tensors, prev_o)
    return Snapshot(records, opt, _scalars(names), console_lines)


def non_finite(array: np.ndarray | None) -> bool:
    """True when a floating array holds a NaN or an infinity."""
    return array is not None and array.dtype.kind in "fc" and not bool(np.isfinite(array).all())


def parameters_of(names: Mapping) -> dict:
    """Display name -> Tensor for the parameters the script trains (in modules or optimizers)."""
    tensors = named_tensors(names)
    by_id = {id(t): n for n, t in tensors.items()}
    out: dict = {}
    for name, value in names.items():
        if is_module(value):
            for pname, p in value.named_parameters():
                out.setdefault(f"{name}.{pname}", p)
        elif is_optimizer(value):
            for g, group in enumerate(value.param_groups):
                for i, p in enumerate(group.get("params", ())):
                    out.setdefault(by_id.get(id(p), f"{name}.param_groups[{g}][{i}]"), p)
    return out
