"""``torch.distributions.utils``: broadcasting of parameters, probs <-> logits, the lazily
computed parameter (after torch/distributions/utils.py)."""

from __future__ import annotations

from functools import update_wrapper

import numpy as np

from .. import creation
from .. import dtypes as _dtypes
from ..autograd.grad_mode import enable_grad
from ..ops import api
from ..tensor import Tensor

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "euler_constant"]

_Number = (bool, int, float)
broadcast_tensors = api.broadcast_tensors


class finfo:
    """``torch.finfo`` of a float dtype: the numbers these modules read."""

    def __init__(self, dtype) -> None:
        info = np.finfo(_dtypes.to_numpy_dtype(dtype))
        self.eps = float(info.eps)
        self.tiny = float(info.tiny)
        self.min = float(info.min)
        self.max = float(info.max)
        self.bits = int(info.bits)
        self.dtype = str(dtype).removeprefix("torch.")



def _is_number(v) -> bool:
    return isinstance(v, _Number)


def broadcast_all(*values):
    """Numbers become tensors (of the first tensor's dtype, else the default float), then all
    are broadcast to one shape (``torch.broadcast_tensors``)."""
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = _dtypes.from_numpy_dtype(_dtypes.DEFAULT_FLOAT)
        for value in values:
            if isinstance(value, Tensor):
                dtype = value.dtype
                break
        values = [v if isinstance(v, Tensor) else creation.tensor(v, dtype=dtype)
                  for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device=None):
    return creation.empty(tuple(shape), dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    if is_binary:
        return api.sigmoid(logits)
    return api.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return api.log(ps_clamped) - api.log1p(-ps_clamped)
    return api.log(ps_clamped)


class lazy_property:
    """A parameter computed on first read (with grad enabled) and then stored on the instance,
    as ``Categorical(probs=p).logits``."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped) -> None:
        property.__init__(self, wrapped)
