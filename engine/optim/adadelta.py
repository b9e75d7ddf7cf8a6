"""``Adadelta``: steps scaled by the ratio of two running root-mean-squares, of the updates and
of the gradients (no learning rate needed in principle; PyTorch's ``lr`` scales the step)."""

from __future__ import annotations

import numpy as np

from .arith import add_scaled, add_scaled_, addcmul_
from .optimizer import Optimizer, bump, scalar_state, zeros_state


class Adadelta(Optimizer):
    """Adadelta (``torch.optim.Adadelta``): ``square_avg`` (of the gradients) and ``acc_delta``
    (of the updates), PyTorch's single-tensor CPU path.

    Parameters
    ----------
    params : iterable
        Tensors or parameter groups.
    lr : float, default 1.0
    rho : float, default 0.9
    eps : float, default 1e-6
    weight_decay : float, default 0
    maximize : bool, default False
    """

    _torch_class_name = "torch.optim.adadelta.Adadelta"

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_for(self, p, group):
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["square_avg"] = zeros_state(p)
            state["acc_delta"] = zeros_state(p)
        return state

    def _update(self, p, grad, state, group) -> None:
        rho, eps = group["rho"], group["eps"]
        step, square_avg, acc_delta = state["step"], state["square_avg"], state["acc_delta"]
        step._data += 1
        bump(step)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = add_scaled(grad, p._data, group["weight_decay"])
        sq, acc = square_avg._data, acc_delta._data
        sq *= sq.dtype.type(rho)
        addcmul_(sq, grad, grad, 1 - rho)
        bump(square_avg, square_avg)
        std = np.sqrt(sq + sq.dtype.type(eps))
        delta = np.sqrt(acc + acc.dtype.type(eps))
        delta /= std
        delta *= grad
        acc *= acc.dtype.type(rho)
        addcmul_(acc, delta, delta, 1 - rho)
        bump(acc_delta, acc_delta)
        add_scaled_(p._data, delta, -group["lr"])
        bump(p)
