"""``AdamW``: Adam with decoupled weight decay (default 1e-2)."""

from __future__ import annotations

from .adam import Adam


class AdamW(Adam):
    """AdamW (``torch.optim.AdamW``): the parameter is first shrunk by ``lr * weight_decay``,
    then the Adam step is taken without the decay in the moments.

    Parameters are Adam's, with ``weight_decay`` defaulting to 1e-2.
    """

    _torch_class_name = "torch.optim.adamw.AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
