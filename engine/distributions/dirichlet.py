"""``Dirichlet(concentration)`` on the simplex, after torch/distributions/dirichlet.py:
``rsample`` is ``_Dirichlet.apply(concentration.expand(shape))`` (``_sample_dirichlet``)."""

from __future__ import annotations

import numpy as np

from .. import random as _random
from ..autograd.function import Function, once_differentiable
from ..ops.api import digamma, lgamma, xlogy
from ..ops.special import dirichlet_grad_one, per_element
from ..tensor import Size, Tensor
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class _Dirichlet(Function):
    """torch's: the draw ``_sample_dirichlet``, its gradient ATen's ``_dirichlet_grad``
    (``engine/ops/special.py``); the node is ``_DirichletBackward``."""

    @staticmethod
    def forward(ctx, concentration):
        x = Tensor._wrap(_random.dirichlet(_random.default_generator,
                                           np.ascontiguousarray(concentration._data)))
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = (t._data for t in ctx.saved_tensors)
        total = np.broadcast_to(concentration.sum(-1, keepdims=True), concentration.shape)
        grad = per_element(dirichlet_grad_one, x, concentration, total)
        g = grad_output._data
        return Tensor._wrap(grad * (g - (x * g).sum(-1, keepdims=True)))


class Dirichlet(ExponentialFamily):
    """Points of the simplex, with one positive concentration per category (last dim)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape = Size(concentration.shape[:-1])
        event_shape = Size(concentration.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",),
                              self.event_shape)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1)
                + lgamma(self.concentration.sum(-1)) - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))
