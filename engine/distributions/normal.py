"""``Normal(loc, scale)``, after torch/distributions/normal.py: ``sample`` is
``torch.normal(loc.expand(shape), scale.expand(shape))``, ``rsample`` ``loc + eps * scale`` with
``eps = empty(shape).normal_()``, the same draws as PyTorch's."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..creation import normal as _normal
from ..ops import api
from . import constraints
from .distribution import _Located
from .exp_family import ExponentialFamily
from .utils import _Number, _standard_normal

__all__ = ["Normal"]


class Normal(_Located, ExponentialFamily):
    """The normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(self._broadcast(loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Normal, batch_shape, _instance, ("loc", "scale"))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = (math.log(self.scale) if isinstance(self.scale, _Number)
                     else self.scale.log())
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(
            math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + api.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + api.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * api.log(-math.pi / y)
