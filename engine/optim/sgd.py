"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from ..tensor import Tensor
from .arith import add_scaled, add_scaled_
from .optimizer import Optimizer, bump


class SGD(Optimizer):
    """Stochastic gradient descent (``torch.optim.SGD``); ``p -= lr * g`` in the plain case.

    Parameters
    ----------
    params : iterable
        Tensors or parameter groups.
    lr : float, default 1e-3
    momentum, dampening, weight_decay : float, default 0
    nesterov, maximize : bool, default False
    """

    _torch_class_name = "torch.optim.sgd.SGD"

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _state_for(self, p, group):
        # plain SGD keeps no state at all, not even an empty entry
        return self.state[p] if group["momentum"] != 0 else {}

    def _update(self, p, grad, state, group) -> None:
        momentum = group["momentum"]
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = add_scaled(grad, p._data, group["weight_decay"])
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._wrap(grad.copy())
            else:
                buf._data *= buf._data.dtype.type(momentum)
                add_scaled_(buf._data, grad, 1 - group["dampening"])
                bump(buf, buf)
            grad = add_scaled(grad, buf._data, momentum) if group["nesterov"] else buf._data
        add_scaled_(p._data, grad, -group["lr"])
        bump(p)
