"""The margin and embedding losses (``cosine_embedding_loss``, ``margin_ranking_loss``,
``triplet_margin_loss`` with its ``pairwise_distance``) and ``gaussian_nll_loss``, PyTorch's
functional forms (re-exported by ``engine.nn.functional``). ATen composes the first three of
ordinary ops in C++, where a ``tensor - number`` is ``sub.Scalar`` (``SubBackward1``) and the norm
is ``at::norm`` (``NormBackward1``); the same calls in the same order here give PyTorch's graph.
``gaussian_nll_loss`` is Python in PyTorch and is followed line by line."""

from __future__ import annotations

import math

from .. import creation
from ..autograd.grad_mode import no_grad
from ..ops import api
from ..ops.dispatch import apply
from ..ops.table import OPS
from . import functional as F

_EPSILON = 1e-12  # ATen's Loss.cpp: keeps the magnitudes of zero vectors off zero


def _reduce(loss, reduction: str):
    """ATen's ``apply_loss_reduction`` (MeanBackward0 / SumBackward0)."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _sizes(t) -> str:
    return "[" + ", ".join(str(n) for n in t.shape) + "]"


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean"):
    """``1 - cos(x1, x2)`` where the target is 1, ``max(0, cos(x1, x2) - margin)`` where it is
    -1, zero elsewhere."""
    reduction = F._reduction(reduction, size_average, reduce)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.ndim != 2 or input2.ndim != 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}.")
    if dim == 0 and (input1.ndim != 1 or input2.ndim != 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = apply(OPS["add_scalar"], (input1 * input1).sum(dim), other=_EPSILON)
    mag_square2 = apply(OPS["add_scalar"], (input2 * input2).sum(dim), other=_EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt_()
    zeros = creation.zeros_like(cos)
    pos = creation.full_like(cos, 1) - cos  # C++'s ``1 - cos``: a filled tensor minus cos
    neg = apply(OPS["sub_scalar"], cos, other=float(margin)).clamp_min_(0)
    output = api.where(target == 1, pos, zeros) + api.where(target == -1, neg, zeros)
    return _reduce(output, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean"):
    """``max(0, -target * (x1 - x2) + margin)``: target 1 asks x1 to rank above x2."""
    reduction = F._reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    unclamped = apply(OPS["add_scalar"], -target * (input1 - input2), other=float(margin))
    return _reduce(unclamped.clamp_min_(0), reduction)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """The p-norm of ``x1 - x2 + eps`` along the last dim (``NormBackward1``)."""
    if not math.isfinite(p) or p <= 0:
        raise NotImplementedError(f"pairwise_distance with p={p!r} is not supported by the "
                                  "engine")
    dim = max(x1.ndim, x2.ndim) - 1
    diff = apply(OPS["add_scalar"], x1 - x2, other=float(eps))
    if diff._data.dtype.kind != "f":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {F._dtype_title(diff)} instead.")
    return apply(OPS["norm_dim"], diff, ord=p, dim=dim % max(diff.ndim, 1), keepdim=keepdim)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise p-distance (with ``swap``,
    ``d(a, n)`` is the smaller of it and ``d(p, n)``)."""
    reduction = F._reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = api.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = (apply(OPS["add_scalar"], dist_pos, other=float(margin)) - dist_neg).clamp_min(0)
    return _reduce(output, reduction)


def _homoscedastic(input, var):
    """var's shape made to broadcast against input's, as PyTorch's checks allow: one dim short
    (unsqueezed), or one dim that differs (of size 1 in var); else a ValueError."""
    if tuple(var.shape) == tuple(input.shape):
        return var
    if tuple(input.shape[:-1]) == tuple(var.shape):
        return api.unsqueeze(var, -1)
    if input.ndim == var.ndim and sum(
            y for x, y in zip(input.shape, var.shape) if x != y) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and variance
    ``var`` (clamped to ``eps`` without recording it), ``+ log(2 pi) / 2`` when ``full``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * creation.ones_like(input)
    elif api.any(var < 0):
        raise ValueError("var has negative entry/entries")
    var = _homoscedastic(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (api.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
