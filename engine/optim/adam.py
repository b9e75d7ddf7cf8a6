"""``Adam`` (and, with decoupled weight decay, ``AdamW``)."""

from __future__ import annotations

import numpy as np

from .arith import add_scaled, addcdiv_, addcmul_, lerp_
from .optimizer import Optimizer, bump, scalar_state, zeros_state


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``): moment estimates ``exp_avg`` and ``exp_avg_sq`` with bias
    correction; ``amsgrad`` keeps ``max_exp_avg_sq``.

    Parameters
    ----------
    params : iterable
        Tensors or parameter groups.
    lr : float, default 1e-3
    betas : (float, float), default (0.9, 0.999)
    eps : float, default 1e-8
    weight_decay : float, default 0
    amsgrad, maximize, decoupled_weight_decay : bool, default False
    """

    _torch_class_name = "torch.optim.adam.Adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _state_for(self, p, group):
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["exp_avg"] = zeros_state(p)
            state["exp_avg_sq"] = zeros_state(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_state(p)
        return state

    def _update(self, p, grad, state, group) -> None:
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step_t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
        step_t._data += 1
        bump(step_t)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= p._data.dtype.type(1 - lr * wd)
                bump(p)
            else:
                grad = add_scaled(grad, p._data, wd)
        lerp_(exp_avg._data, grad, 1 - beta1)
        sq = exp_avg_sq._data
        sq *= sq.dtype.type(beta2)
        addcmul_(sq, grad, grad, 1 - beta2)
        bump(exp_avg, exp_avg_sq, exp_avg_sq)
        # the bias corrections are Python floats, as PyTorch's non-capturable path computes them
        step = float(step_t._data)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            np.maximum(max_sq._data, sq, out=max_sq._data)
            bump(max_sq)
            sq = max_sq._data
        denom = np.sqrt(sq) / bias_correction2_sqrt + eps
        addcdiv_(p._data, exp_avg._data, denom, -step_size)
        bump(p)
