"""``Exponential(rate)``, after torch/distributions/exponential.py: ``rsample`` is
``empty(shape).exponential_() / rate``."""

from __future__ import annotations

from .. import creation
from ..ops import api
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Waiting times with ``rate`` events per unit: density ``rate * exp(-rate * x)``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return creation.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None) -> None:
        super().__init__(self._broadcast(rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return creation.empty(tuple(shape), dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - api.exp(-self.rate * value)

    def icdf(self, value):
        return -api.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - api.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -api.log(-x)
