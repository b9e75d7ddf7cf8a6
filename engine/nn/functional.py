"""``nn.functional``: layers and losses as functions, recording the nodes PyTorch records.

Argument checks raise PyTorch's errors (same type, same first line). The fused losses are rows of
the op table (``MseLossBackward0``, ``NllLossBackward0``, ...); the others are compositions that
give the same chain of nodes as PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..dtypes import result_type
from ..ops import api
from ..ops.dispatch import apply
from ..ops.table import OPS
from ..tensor import Tensor

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def legacy_reduction(size_average, reduce, emit_warning: bool = True) -> str:
    """The ``reduction`` string meant by the deprecated ``size_average``/``reduce`` flags."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{result}' "
            "instead.",
            UserWarning,
            stacklevel=3,
        )
    return result


_TITLES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
           "bool": "Bool", "uint8": "Byte", "float16": "Half", "int16": "Short", "int8": "Char"}


def _dtype_title(t: Tensor) -> str:
    return _TITLES.get(t._data.dtype.name, t._data.dtype.name)


# -- layers ----------------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded as PyTorch records it: ``AddmmBackward0`` for 2-D
    input, wrapped in ``ViewBackward0`` nodes for other ranks; ``matmul``'s nodes without bias."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.ndim}D and {weight.ndim}D"
        )
    if bias is None:
        return api.matmul(input, weight.t())
    if input.ndim == 2:
        return api.addmm(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1])
    out = api.addmm(bias, rows, weight.t())
    return out.view(*input.shape[:-1], out.shape[-1])


def relu(input, inplace: bool = False):
    """Rectified linear unit, ``max(input, 0)``."""
    return input.relu_() if inplace else api.relu(input)


def tanh(input):
    """Hyperbolic tangent."""
    return api.tanh(input)


def sigmoid(input):
    """Logistic sigmoid."""
    return api.sigmoid(input)


def _check_floating(input, kernel: str) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_title(input)}\'')


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``x`` where positive, ``negative_slope * x`` elsewhere (``LeakyReluBackward0``; in place,
    ``LeakyReluBackward1``)."""
    _check_floating(input, "leaky_relu_cpu")
    if inplace:
        return api.inplace("leaky_relu_", input, None, negative_slope=negative_slope)
    return apply(OPS["leaky_relu"], input, negative_slope=negative_slope)


def gelu(input, approximate: str = "none"):
    """Gaussian error linear unit, exact (erf) or with PyTorch's tanh approximation."""
    if not isinstance(approximate, str):
        raise TypeError(
            f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}"
        )
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    return apply(OPS["gelu"], input, approximate=approximate)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    _check_floating(input, "softplus_cpu")
    return apply(OPS["softplus"], input, beta=beta, threshold=threshold)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (``EluBackward0``; in place,
    ``EluBackward1``)."""
    _check_floating(input, "elu_cpu")
    if inplace:
        return api.inplace("elu_", input, None, alpha=alpha)
    return apply(OPS["elu"], input, alpha=alpha)


def silu(input, inplace: bool = False):
    """``x * sigmoid(x)`` (``SiluBackward0``, in place too)."""
    _check_floating(input, "silu_cpu")
    if inplace:
        return api.inplace("silu", input)
    return apply(OPS["silu"], input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim`` (PyTorch's implicit choice, with its warning, when None)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return api.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log of the softmax along ``dim``."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return api.log_softmax(input, dim, dtype=dtype)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    return api.flatten(input, start_dim, end_dim)


# -- losses ----------------------------------------------------------------------------------------

def _warn_size(input, target, stacklevel=3) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=stacklevel,
        )


def _broadcast_pair(input, target):
    """``torch.broadcast_tensors`` for two tensors: only a tensor whose shape changes is
    expanded (an ``ExpandBackward0`` node), as PyTorch does."""
    api._check_broadcast(input, target)
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    if tuple(input.shape) != shape:
        input = input.expand(*shape)
    if tuple(target.shape) != shape:
        target = target.expand(*shape)
    return input, target


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    from ..creation import tensor

    return tensor(x)


def _elementwise_loss_args(input, target, size_average, reduce, reduction):
    target = _as_tensor(target)
    _warn_size(input, target, stacklevel=4)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _broadcast_pair(input, target)
    return input, target, reduction


def _weighted_loss(errors, input, weight, reduction):
    """PyTorch's Python path for a weighted mse/l1 loss: ``errors * weight``, then reduced (the
    mean divides by the sum of the weights)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = errors * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return api.sum(weighted)
    if reduction == "mean":
        return api.sum(weighted) / api.sum(weight)
    raise ValueError(
        f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
    )


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
             weight=None):
    """Mean squared error (``MseLossBackward0``; composed ops when ``weight`` is given)."""
    input, target, reduction = _elementwise_loss_args(input, target, size_average, reduce,
                                                      reduction)
    if weight is not None:
        return _weighted_loss(api.pow(input - target, 2), input, weight, reduction)
    reduction = _reduction(reduction)
    if input._data.dtype.kind != "f" or target._data.dtype.kind != "f":
        dt = result_type(input._data, target._data)
        if dt.kind != "f":  # PyTorch has no integer kernel
            raise NotImplementedError(
                f'"mse_cpu" not implemented for \'{_TITLES.get(dt.name, dt.name)}\''
            )
    return apply(OPS["mse_loss"], input, target, reduction=reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
            weight=None):
    """Mean absolute error, composed as PyTorch does: ``(input - target).abs()`` then reduced."""
    input, target, reduction = _elementwise_loss_args(input, target, size_average, reduce,
                                                      reduction)
    errors = api.abs(input - target)
    if weight is not None:
        return _weighted_loss(errors, input, weight, reduction)
    reduction = _reduction(reduction)
    if reduction == "mean":
        return errors.mean()
    if reduction == "sum":
        return errors.sum()
    return errors


def _check_class_target(target):
    if target._data.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_dtype_title(target)}"
        )


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    """Negative log-likelihood of class indices ``target`` under log-probabilities ``input``."""
    reduction = _reduction(reduction, size_average, reduce)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    target_batch = target.shape[0] if target.ndim else 0
    if input.ndim != 1 and input.shape[0] != target_batch:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target_batch})."
        )
    if input.ndim <= 2:
        return _nll_loss_1d_2d(input, target, weight, reduction, ignore_index)
    return _nll_loss_spatial(input, target, weight, reduction, ignore_index)


def _class_weights(input, weight):
    if weight is None:
        return None
    n_classes = input.shape[-1] if input.ndim <= 2 else input.shape[1]
    if weight.ndim != 1 or weight.numel() != n_classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes "
            f"but got weight tensor of shape: [{', '.join(map(str, weight.shape))}]"
        )
    if weight.requires_grad:
        raise RuntimeError(
            "The function 'nll_loss_forward' is not differentiable with respect to argument "
            "'weight'. This input cannot have requires_grad True."
        )
    return weight._data.astype(input._data.dtype, copy=False)


def _check_targets_in_range(target, n_classes, ignore_index) -> np.ndarray:
    t = target._data.astype(np.int64, copy=False)
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    return t


def _nll_loss_1d_2d(input, target, weight, reduction, ignore_index):
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _check_class_target(target)
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        )
    # a 1-D input takes a 0-d target or a 1-D target of size 1 (no batch either way)
    no_batch = input.ndim == 1
    if not no_batch and input.shape[0] != target.shape[0]:
        raise RuntimeError(
            f"size mismatch (got input: {_list_text(input.shape)}, target: "
            f"{_list_text(target.shape)})"
        )
    w = _class_weights(input, weight)
    _check_floating(input, "nll_loss_out_frame")
    t = _check_targets_in_range(target, input.shape[-1], ignore_index)
    return apply(OPS["nll_loss"], input, target=t, weight=w, reduction=reduction,
                 ignore_index=ignore_index)


def _nll_loss_spatial(input, target, weight, reduction, ignore_index):
    """(N, C, d1, ...) inputs: PyTorch's ``NllLoss2DBackward0``, reshaping to 4-D first unless
    the input is 4-D already."""
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {target.ndim}"
            )
        if tuple(target.shape) != out_size:
            raise RuntimeError(
                f"size mismatch (got input: {_list_text(input.shape)} , target: "
                f"{_list_text(target.shape)}"
            )
    elif tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(
            f"Expected target size {_list_text(out_size)}, got {_list_text(target.shape)}"
        )
    _check_class_target(target)
    w = _class_weights(input, weight)
    _check_floating(input, "nll_loss2d_forward_out_frame")
    t = _check_targets_in_range(target, c, ignore_index)
    x = input
    if input.ndim != 4:
        x = input.contiguous().view(n, c, 1, -1)
        t = t.reshape(n, 1, -1)
    out = apply(OPS["nll_loss2d"], x, target=t, weight=w, reduction=reduction,
                ignore_index=ignore_index)
    if reduction == "none" and input.ndim != 4:
        out = out.view(*out_size)
    return out


def _list_text(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """Cross entropy of logits ``input``: ``nll_loss(log_softmax(input))`` for class indices, or
    ``-(log_softmax(input) * target)`` summed over classes for class probabilities."""
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing)}"
        )
    class_dim = 0 if input.ndim == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        if target._data.dtype.kind != "f":
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{_dtype_title(target)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        if label_smoothing > 0.0:
            n_classes = input.shape[class_dim]
            target = apply(OPS["add_scalar"],
                           apply(OPS["mul_scalar"], target, other=1 - label_smoothing),
                           other=label_smoothing / n_classes)
        return _cross_entropy_probabilities(input, target, weight, reduction, class_dim)
    log_p = api.log_softmax(input, class_dim)
    nll = nll_loss(log_p, target, weight, None, ignore_index, None, reduction)
    if label_smoothing > 0.0:
        if input.ndim == 1 and target.ndim == 1:  # PyTorch's in-place mix of [] and [1]
            raise RuntimeError("output with shape [] doesn't match the broadcast shape [1]")
        return _smoothed(log_p, nll, target, weight, reduction, ignore_index, label_smoothing,
                         class_dim)
    return nll


def _smoothed(log_p, nll, target, weight, reduction, ignore_index, label_smoothing, class_dim):
    """Label smoothing over class indices, composed as PyTorch's C++ composes it: the nll loss
    mixed with the mean of -log p over all classes (ignored targets contribute nothing)."""
    n_classes = log_p.shape[class_dim]
    ignore_mask = target._data == ignore_index
    if weight is not None:
        shape = [1] * log_p.ndim
        shape[class_dim] = n_classes
        smooth = -(log_p * weight.view(*shape)).sum(class_dim)
    else:
        smooth = -log_p.sum(class_dim)
    smooth = apply(OPS["masked_fill"], smooth, mask=ignore_mask, value=0.0)
    if reduction == "mean":
        if weight is not None:
            picked = target._data[~ignore_mask].reshape(-1)
            denominator = Tensor._wrap(np.asarray(np.sum(weight._data[picked])))
        else:
            denominator = Tensor._wrap(np.asarray(np.sum(~ignore_mask), dtype=np.int64))
        smooth = smooth.sum() / denominator
    elif reduction == "sum":
        smooth = smooth.sum()
    return (apply(OPS["mul_scalar"], nll, other=1 - label_smoothing)
            + apply(OPS["mul_scalar"], smooth, other=label_smoothing / n_classes))


def _cross_entropy_probabilities(input, target, weight, reduction, class_dim):
    log_p = api.log_softmax(input, class_dim)
    terms = log_p * target
    if weight is not None:
        n_classes = input.shape[class_dim]
        if weight.ndim != 1 or weight.numel() != n_classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: [{', '.join(map(str, weight.shape))}]"
            )
        shape = [1] * input.ndim
        shape[class_dim] = n_classes
        terms = terms * weight.view(*shape)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    batch = input.numel() / input.shape[class_dim]
    return apply(OPS["div_scalar"], -terms.sum(), other=batch)


def _check_bce_weight(input, weight, fused=True):
    """The weight as an array of the input's shape. ``binary_cross_entropy`` broadcasts it inside
    its kernel (and says so when it cannot); the logits version multiplies, as ``loss * weight``."""
    if weight is None:
        return None
    if not fused:
        api._check_broadcast(input, weight)
    elif weight.ndim > input.ndim:
        raise RuntimeError(
            f"output with shape {_list_text(input.shape)} doesn't match the broadcast shape "
            f"{_list_text(np.broadcast_shapes(weight.shape, input.shape))}"
        )
    else:
        for k in range(1, weight.ndim + 1):
            if weight.shape[-k] not in (1, input.shape[-k]):
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {weight.shape[-k]} at {-k}! "
                    f"Mismatching argument at index 1 had {weight.shape}; but expected shape "
                    f"should be broadcastable to {_list_text(input.shape)}"
                )
    return np.broadcast_to(weight._data, np.broadcast_shapes(weight.shape, input.shape)) \
        .astype(input._data.dtype, copy=False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """Binary cross entropy of probabilities ``input`` (``BinaryCrossEntropyBackward0``)."""
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Found dtype {_dtype_title(target)} but expected {_dtype_title(input)}"
        )
    _check_floating(input, "binary_cross_entropy")
    x = input._data
    if ((x < 0) | (x > 1)).any() or np.isnan(x).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    w = _check_bce_weight(input, weight)
    return apply(OPS["binary_cross_entropy"], input, target, weight=w, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction: str = "mean", pos_weight=None):
    """Binary cross entropy of logits, computed stably
    (``BinaryCrossEntropyWithLogitsBackward0``)."""
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    # PyTorch computes ``log_sigmoid(input)`` (no integer kernel), then
    # ``(1 - target).mul_(input)``: the loss takes the target's dtype (an integer can't hold it)
    _check_floating(input, "log_sigmoid_cpu")
    x_dt, y_dt = input._data.dtype, target._data.dtype
    if y_dt.kind == "b":
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
            "or `logical_xor()` operator instead."
        )
    if y_dt.kind != "f" and result_type(target._data, input._data).kind == "f":
        raise RuntimeError(
            f"result type {_dtype_title(input)} can't be cast to the desired output type "
            f"{_dtype_title(target)}"
        )
    w = _check_bce_weight(input, weight, fused=False)
    pw = None
    if pos_weight is not None:
        pw = np.asarray(pos_weight._data, dtype=input._data.dtype)
    if x_dt != y_dt and y_dt.kind == "f":
        return apply(OPS["binary_cross_entropy_with_logits"], input, target, weight=w,
                     pos_weight=pw, reduction=reduction, out_dtype=y_dt)
    return apply(OPS["binary_cross_entropy_with_logits"], input, target, weight=w,
                 pos_weight=pw, reduction=reduction)
