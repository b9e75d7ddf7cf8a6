"""``RMSprop``: gradients scaled by a running root-mean-square."""

from __future__ import annotations

import numpy as np

from .arith import add_scaled, add_scaled_, addcdiv_, addcmul, addcmul_, lerp_
from .optimizer import Optimizer, bump, scalar_state, zeros_state


class RMSprop(Optimizer):
    """RMSprop (``torch.optim.RMSprop``): ``square_avg``, plus ``grad_avg`` when centered and a
    ``momentum_buffer`` when momentum > 0.

    Parameters
    ----------
    params : iterable
        Tensors or parameter groups.
    lr : float, default 1e-2
    alpha : float, default 0.99
    eps : float, default 1e-8
    weight_decay, momentum : float, default 0
    centered, maximize : bool, default False
    """

    _torch_class_name = "torch.optim.rmsprop.RMSprop"

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_for(self, p, group):
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["square_avg"] = zeros_state(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_state(p)
            if group["centered"]:
                state["grad_avg"] = zeros_state(p)
        return state

    def _update(self, p, grad, state, group) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        if group["maximize"]:
            grad = -grad
        step, square_avg = state["step"], state["square_avg"]
        step._data += 1
        bump(step)
        if group["weight_decay"] != 0:
            grad = add_scaled(grad, p._data, group["weight_decay"])
        sq = square_avg._data
        sq *= sq.dtype.type(alpha)
        addcmul_(sq, grad, grad, 1 - alpha)
        bump(square_avg, square_avg)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            lerp_(grad_avg._data, grad, 1 - alpha)
            bump(grad_avg)
            avg = np.sqrt(addcmul(sq, grad_avg._data, grad_avg._data, -1))
        else:
            avg = np.sqrt(sq)
        avg += avg.dtype.type(eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            b = buf._data
            b *= b.dtype.type(group["momentum"])
            addcdiv_(b, grad, avg)
            bump(buf, buf)
            add_scaled_(p._data, b, -lr)
        else:
            addcdiv_(p._data, grad, avg, -lr)
        bump(p)
