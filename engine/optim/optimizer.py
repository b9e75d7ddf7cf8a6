"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict`` and the
events a debugger watches (``param_updated``, ``optimizer_state_changed``, ``grad_zeroed``).

Subclasses implement ``_update(p, grad, state, group)`` with PyTorch's single-tensor
(``foreach=False``) algorithm, in the same operation order and in the parameter's dtype, working
in place on the numpy arrays of the parameter and of its state tensors.
"""

from __future__ import annotations

from collections import defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from ..autograd.grad_mode import enable_grad, no_grad
from ..events import OPTIMIZER_STATE_CHANGED, PARAM_UPDATED, hub
from ..nn.module import _typename, reset_grad
from ..tensor import Tensor, TorchNamedMeta


def bump(*tensors: Tensor) -> None:
    """Count one in-place change on each tensor, as PyTorch's version counter does."""
    for t in tensors:
        t._version.value += 1


def scalar_state(value: float = 0.0) -> Tensor:
    """A 0-dim float32 tensor, as PyTorch 2.x keeps ``state["step"]``."""
    return Tensor._wrap(np.asarray(value, dtype=np.float32))


def zeros_state(p: Tensor, fill: float = 0.0) -> Tensor:
    """A state tensor shaped and typed like ``p``."""
    return Tensor._wrap(np.full(p._data.shape, fill, dtype=p._data.dtype))


class Optimizer(metaclass=TorchNamedMeta):
    """Base class of the optimizers (``torch.optim.Optimizer``).

    Parameters
    ----------
    params : iterable of Tensor or of dict
        The tensors to optimise, or parameter groups: dicts with a ``"params"`` list and
        options overriding ``defaults``.
    defaults : dict
        The options every group gets unless it sets its own.
    """

    _torch_class_name = "torch.optim.optimizer.Optimizer"

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        if defaults.get("differentiable"):
            raise NotImplementedError("gradstep: differentiable optimizers are not supported")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- groups ------------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len(tensors) != len(set(map(id, tensors))):
            import warnings

            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen = set()
        for group in self.param_groups:
            seen.update(map(id, group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(map(id, tensors)):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients and steps -----------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every optimised tensor: to None (PyTorch 2.x's default), or
        detached and zeroed in place with ``set_to_none=False``."""
        for group in self.param_groups:
            for p in group["params"]:
                reset_grad(p, set_to_none)

    def step(self, closure=None):
        """Update every parameter that has a gradient (parameters whose ``.grad`` is None are
        skipped and get no state). ``closure`` re-evaluates the loss and returns it."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group: dict) -> None:
        for p in group["params"]:
            if p.grad is None:
                continue
            before = p._data.copy() if hub.active else None
            state = self._state_for(p, group)
            self._update(p, p.grad._data, state, group)
            if before is not None:
                hub.emit(PARAM_UPDATED, tensor=p, optimizer=self, before=before)
                if state:
                    hub.emit(OPTIMIZER_STATE_CHANGED, optimizer=self, param=p)

    def _state_for(self, p: Tensor, group: dict) -> dict:
        """The state dict of ``p`` (created on first use by subclasses that keep state)."""
        return self.state[p]

    def _update(self, p: Tensor, grad: np.ndarray, state: dict, group: dict) -> None:
        raise NotImplementedError

    # -- saving and loading ------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {index: state}, "param_groups": [...]}`` with parameters replaced by
        their index in group order, as PyTorch saves it."""
        mapping: dict[int, int] = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore options and state saved by ``state_dict`` (matched by position)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            # floating state follows the parameter's dtype, except "step" (PyTorch issue 74424)
            if isinstance(value, Tensor):
                if key != "step" and param.is_floating_point():
                    return value.to(param.dtype)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, list | tuple):  # rebuilt, as torch's _cast rebuilds iterables
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
