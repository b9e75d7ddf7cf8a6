"""``Laplace(loc, scale)``, after torch/distributions/laplace.py: ``rsample`` draws
``u = empty(shape).uniform_(eps - 1, 1)`` and returns ``loc - scale * sign(u) * log1p(-|u|)``."""

from __future__ import annotations

from .. import creation
from ..ops import api
from . import constraints
from .distribution import Distribution, _Located
from .utils import finfo

__all__ = ["Laplace"]


class Laplace(_Located, Distribution):
    """The Laplace (double exponential) distribution around ``loc`` with ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(self._broadcast(loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = creation.empty(tuple(shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * api.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -api.log(2 * self.scale) - api.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * api.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * api.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + api.log(2 * self.scale)
