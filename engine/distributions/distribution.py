"""``torch.distributions.Distribution``: batch and event shapes, ``sample``/``rsample``,
argument and sample validation with PyTorch's messages (after
torch/distributions/distribution.py)."""

from __future__ import annotations

import warnings

from ..autograd.grad_mode import no_grad
from ..ops import api
from ..tensor import Size, Tensor
from . import constraints
from .utils import _Number, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Distribution"]

_SCALAR = Size()  # the shapes of a scalar distribution


def _require(valid, what: str, value, condition: str) -> None:
    """torch's ValueError when ``valid`` (a check's bool tensor) is not all true."""
    if not bool(valid.all()):
        raise ValueError(f"{what} ({type(value).__name__} of shape {tuple(value.shape)}) "
                         f"{condition}, but found invalid values:\n{value}")


class Distribution:
    """The base class of probability distributions.

    Parameters
    ----------
    batch_shape : torch.Size
        The shape over which parameters are batched.
    event_shape : torch.Size
        The shape of a single sample (without batching).
    validate_args : bool, optional
        Whether to check the parameters (and the values given to ``log_prob``); on by default,
        as PyTorch's (``Distribution.set_default_validate_args``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_SCALAR, event_shape=_SCALAR, validate_args=None) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # not computed yet: checking would compute it
                value = getattr(self, param)
                _require(constraint.check(value), f"Expected parameter {param}", value,
                         f"of distribution {self!r} to satisfy the constraint {constraint!r}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    # -- what torch's subclasses each write out in their __init__ and expand --------------------
    def _broadcast(self, **params) -> Size:
        """The parameters through ``broadcast_all``, stored under their names; returns the batch
        shape (``()`` when all were numbers)."""
        tensors = broadcast_all(*params.values())
        for name, value in zip(params, tensors):
            setattr(self, name, value)
        if all(isinstance(v, _Number) for v in params.values()):
            return Size()
        return tensors[0].size()

    def _expanded(self, cls, batch_shape, _instance, names, param_shape=()):
        """``expand``'s new instance of ``cls``: the parameters ``names`` this instance has,
        expanded to ``batch_shape + param_shape``, and no second validation."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        shape = tuple(batch_shape) + tuple(param_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(shape))
        super(cls, new).__init__(batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without grad."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised sample: grads flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int):
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return api.exp(self.entropy())

    def _extended_shape(self, sample_shape=()) -> Size:
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.", stacklevel=2)
            return
        _require(support.check(value), "Expected value argument", value,
                 f"to be within the support ({support!r}) of the distribution {self!r}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return self.__class__.__name__ + "(" + args + ")"


class _Located:
    """``mean`` and ``mode`` are the ``loc`` parameter (Normal, Laplace, MultivariateNormal)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class _BinaryParams:
    """``probs`` and ``logits`` computed from each other on first use (sigmoid and its inverse),
    ``param_shape`` that of the one given (Bernoulli, Binomial)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()
