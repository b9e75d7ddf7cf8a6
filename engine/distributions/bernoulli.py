"""``Bernoulli(probs=None, logits=None)``, after torch/distributions/bernoulli.py: ``sample`` is
``torch.bernoulli(probs.expand(shape))``."""

from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad
from ..creation import arange
from ..ops import api
from ..random import bernoulli as _bernoulli
from ..tensor import Size
from . import constraints
from .distribution import _BinaryParams
from .exp_family import ExponentialFamily
from .utils import _Number, broadcast_all

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    from ..nn.functional import binary_cross_entropy_with_logits

    return binary_cross_entropy_with_logits(logits, target, reduction="none")


class Bernoulli(_BinaryParams, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, _Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, _Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.logits if "logits" in self.__dict__ else new.probs
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (api.log(self.probs) - api.log1p(-self.probs),)

    def _log_normalizer(self, x):
        return api.log1p(api.exp(x))
