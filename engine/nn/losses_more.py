"""``smooth_l1_loss``, ``huber_loss`` and ``kl_div``, PyTorch's functional forms (re-exported by
``engine.nn.functional``). The first two are PyTorch's fused kernels, so each is one op row with
PyTorch's node name (``SmoothL1LossBackward0``, ``HuberLossBackward0``); ``kl_div`` is composed
of ordinary ops, as ATen composes it, so that its graph has PyTorch's nodes."""

from __future__ import annotations

import warnings

from .. import ops
from ..dtypes import from_numpy_dtype, promote_types, scalar_type_name
from ..ops.dispatch import apply
from ..ops.table import OPS
from . import functional as F


def _smooth_l1_operands(input, target):
    """smooth_l1's operands in their promoted dtype (PyTorch's kernel promotes: float32 with
    float64 is float64, an integer with a float the float), refused when that is not a float."""
    dtype = promote_types(input._data.dtype, target._data.dtype)
    if dtype.kind != "f":
        raise NotImplementedError(
            f'"smooth_l1_cpu" not implemented for \'{scalar_type_name(dtype)}\'')
    return _as(input, dtype), _as(target, dtype)


def _huber_operands(input, target):
    """huber's operands in the input's dtype (PyTorch's kernel writes a loss shaped and typed as
    the input and casts the target to it; an integer input cannot hold a float loss)."""
    dtype = input._data.dtype
    if dtype.kind != "f":
        other = promote_types(dtype, target._data.dtype)
        if other.kind == "f":
            raise RuntimeError(f"result type {scalar_type_name(other)} can't be cast to the "
                               f"desired output type {scalar_type_name(dtype)}")
        raise NotImplementedError(f'"huber_cpu" not implemented for \'{scalar_type_name(other)}\'')
    return input, _as(target, dtype)


def _as(t, dtype):
    return t if t._data.dtype == dtype else t.to(from_numpy_dtype(dtype))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """Squared error below ``beta``, absolute error above (``SmoothL1LossBackward0``; with
    ``beta=0`` PyTorch's l1 loss instead)."""
    input, target, reduction = F._elementwise_loss_args(input, target, size_average, reduce,
                                                        reduction)
    if beta == 0.0:
        return F.l1_loss(input, target, reduction=reduction)
    reduction = F._reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = _smooth_l1_operands(input, target)
    return apply(OPS["smooth_l1_loss"], input, target, reduction=reduction,
                 beta=float(beta))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Squared error below ``delta``, delta-scaled absolute error above
    (``HuberLossBackward0``); with ``weight`` the unreduced loss times the weights, reduced."""
    input, target, _ = F._elementwise_loss_args(input, target, None, None, reduction)
    if weight is None:
        reduction = F._reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _huber_operands(input, target)
    if weight is None:
        return apply(OPS["huber_loss"], input, target, reduction=reduction,
                     delta=float(delta))
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = apply(OPS["huber_loss"], input, target, reduction="none",
                     delta=float(delta)) * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.mean()
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """Pointwise KL divergence of ``target`` from log-probabilities ``input``, composed as ATen
    composes it (``xlogy(t, t) - t * input``, or ``exp(t) * (t - input)`` for a log target)."""
    if size_average is not None or reduce is not None:
        reduction = F.legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div "
                "math definition.'mean' will be changed to behave the same as 'batchmean' in "
                "the next major release.", UserWarning, stacklevel=2)
        if reduction != "batchmean":
            reduction = F._reduction(reduction)
    if log_target:
        loss = ops.api.exp(target) * (target - input)
    else:
        loss = ops.api.xlogy(target, target) - target * input
    if reduction == "mean":
        return loss.mean()
    if reduction in ("sum", "batchmean"):
        loss = loss.sum()
        return loss / input.shape[0] if reduction == "batchmean" and input.ndim else loss
    return loss
