"""``Adagrad``: per-coordinate learning rates from the running sum of squared gradients."""

from __future__ import annotations

import numpy as np

from .arith import add_scaled, addcdiv_, addcmul_
from .optimizer import Optimizer, bump, scalar_state, zeros_state


class Adagrad(Optimizer):
    """Adagrad (``torch.optim.Adagrad``). Unlike the other optimizers its state (``step``,
    ``sum``) is created for every parameter when the optimizer is built, as in PyTorch.

    It takes torch's arguments with torch's defaults: ``params`` (tensors or parameter groups),
    ``lr=1e-2``, ``lr_decay=0``, ``weight_decay=0``, ``initial_accumulator_value=0``,
    ``eps=1e-10`` and ``maximize=False``.
    """

    _torch_class_name = "torch.optim.adagrad.Adagrad"

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = scalar_state()
                state["sum"] = zeros_state(p, initial_accumulator_value)

    def _update(self, p, grad, state, group) -> None:
        step_t, state_sum = state["step"], state["sum"]
        step_t._data += 1
        bump(step_t)
        step = float(step_t._data)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = add_scaled(grad, p._data, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state_sum._data
        addcmul_(s, grad, grad, 1)
        bump(state_sum)
        std = np.sqrt(s) + group["eps"]
        addcdiv_(p._data, grad, std, -clr)
        bump(p)
