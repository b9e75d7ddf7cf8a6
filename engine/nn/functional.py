"""``nn.functional``: layers and losses as functions, recording the nodes PyTorch records.

Argument checks raise PyTorch's errors (same type, same first line). The fused losses are rows of
the op table (``MseLossBackward0``, ``NllLossBackward0``, ...); the others are compositions that
give the same chain of nodes as PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..dtypes import result_type, scalar_type_name
from ..ops import api
from ..ops.dispatch import apply
from ..ops.table import OPS
from ..tensor import TENSOR_TYPES, Tensor

_REDUCTIONS = ("none", "mean", "sum")
_ADDMM, _T, _MSE_LOSS = OPS["addmm"], OPS["t"], OPS["mse_loss"]


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


def _dtype_title(t: Tensor) -> str:
    return scalar_type_name(t._data.dtype)


# -- layers ----------------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded as PyTorch records it: ``AddmmBackward0`` for 2-D
    input, wrapped in ``ViewBackward0`` nodes for other contiguous input; ``matmul``'s nodes
    then an in-place ``add_`` of the bias (``AddBackward0``) for non-contiguous input; ``matmul``'s
    nodes alone without bias."""
    tensor_types = TENSOR_TYPES
    if (bias is not None and input.__class__ in tensor_types
            and weight.__class__ in tensor_types and bias.__class__ in tensor_types):
        x, w = input._data, weight._data
        dt = w.dtype
        if (x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[1] and x.dtype == dt
                and bias._data.dtype == dt):
            # nn.Linear's call: ``addmm(bias, input, weight.t())`` once its checks (dims,
            # dtypes, shapes) are known to pass
            return api._mm_apply(_ADDMM, bias, input, apply(_T, weight))
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.ndim}D and {weight.ndim}D"
        )
    if bias is None:
        return api.matmul(input, weight.t())
    if input.ndim == 2:
        return api.addmm(bias, input, weight.t())
    if not input.is_contiguous():  # PyTorch folds only contiguous input into one addmm
        return api.matmul(input, weight.t()).add_(bias)
    rows = input.view(-1, input.shape[-1])
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


def _activation(input, kernel: str, row: str, inplace_row, **params):
    """A float-only activation row, or (``inplace_row`` given) its in-place row on ``input``."""
    _check_floating(input, kernel)
    if inplace_row:
        return api.inplace(inplace_row, input, None, **params)
    return apply(OPS[row], input, **params)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``x`` where positive, ``negative_slope * x`` elsewhere (``LeakyReluBackward0``; in place,
    ``LeakyReluBackward1``)."""
    return _activation(input, "leaky_relu_cpu", "leaky_relu", inplace and "leaky_relu_",
                       negative_slope=negative_slope)


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
    return _activation(input, "elu_cpu", "elu", inplace and "elu_", alpha=alpha)


def silu(input, inplace: bool = False):
    """``x * sigmoid(x)`` (``SiluBackward0``, in place too)."""
    return _activation(input, "silu_cpu", "silu", inplace and "silu")


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


def one_hot(tensor, num_classes: int = -1):
    return api.one_hot(tensor, num_classes)


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
    if (input.__class__ in TENSOR_TYPES and target.__class__ in TENSOR_TYPES
            and reduction.__class__ is str and reduction in _REDUCTIONS
            and size_average is None and reduce is None and weight is None):
        x, y = input._data, target._data
        if x.shape == y.shape and x.dtype.kind == "f" and y.dtype.kind == "f":
            # the common call: no warning, broadcast, legacy flag or dtype error can apply
            return apply(_MSE_LOSS, input, target, reduction=reduction)
    input, target, reduction = _elementwise_loss_args(input, target, size_average, reduce,
                                                      reduction)
    if weight is not None:
        return _weighted_loss(api.pow(input - target, 2), input, weight, reduction)
    reduction = _reduction(reduction)
    if input._data.dtype.kind != "f" or target._data.dtype.kind != "f":
        dt = result_type(input._data, target._data)
        if dt.kind != "f":  # PyTorch has no integer kernel
            raise NotImplementedError(
                f'"mse_cpu" not implemented for \'{scalar_type_name(dt)}\''
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
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {_dtype_title(target)} but expected "
                           f"{_dtype_title(input)}")
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


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """PyTorch's CPU dropout: ``noise = empty_like(input).bernoulli_(1 - p)`` (a 53-bit uniform
    per element, kept when below 1 - p), ``noise.div_(1 - p)``, then ``input * noise``
    (``MulBackward0``; ``mul_`` in place). Not training, p = 0 or no elements: ``input`` itself."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input._data.size == 0:
        return input
    from .. import random as _random

    arr = input._data
    if p == 1:
        noise = Tensor._wrap(np.zeros((), dtype=arr.dtype))
    else:
        keep = _random.bernoulli_scalar(_random.default_generator, arr.size, 1.0 - p)
        scale = np.asarray(1.0, arr.dtype) / np.asarray(1.0 - p, arr.dtype)
        # ``empty_like(input)`` keeps the input's memory layout: draws land in memory order
        values = np.empty_like(arr)
        view = _random._iteration_view(values)
        view[...] = (keep * scale).astype(arr.dtype).reshape(view.shape)
        noise = Tensor._wrap(values)
    return input.mul_(noise) if inplace else api.mul(input, noise)


# -- layers: convolution, pooling, padding (rows under "# -- layers" in engine/ops/table.py) -------

def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value) if len(value) != 1 else (int(value[0]),) * n
    return (int(value),) * n


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def pad(input, pad, mode: str = "constant", value=None):
    """Constant padding (``ConstantPadNdBackward0``): ``pad`` gives (before, after) pairs from the
    last dimension backwards; negative amounts crop."""
    if mode != "constant":
        raise NotImplementedError(f"F.pad mode {mode!r} is not implemented by the engine")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}")
    return apply(OPS["constant_pad_nd"], input, pad=pad, value=0 if value is None else value)


def _conv(input, weight, bias, stride, padding, dilation, groups, nd: int, name: str):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {_shape_text(input.shape)}")
    x_dt, w_dt = input._data.dtype, weight._data.dtype
    if x_dt != w_dt:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x_dt)} but found "
                           f"{scalar_type_name(w_dt)}")
    if bias is not None:
        if bias._data.dtype != x_dt:
            raise RuntimeError(
                f"Input type ({_c_type(x_dt)}) and bias type ({_c_type(bias._data.dtype)}) "
                "should be the same")
        if bias.ndim != 1 or bias.shape[0] != weight.shape[0]:
            raise RuntimeError(
                f"Given weight of size {_shape_text(weight.shape)}, expected bias to be "
                f"1-dimensional with {weight.shape[0]} elements, but got bias of size "
                f"{_shape_text(bias.shape)} instead")
    stride = _ntuple(stride, nd)
    dilation = _ntuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    kernel = tuple(weight.shape[2:])
    extra = None
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            padding = tuple(t // 2 for t in total)
            extra = tuple(t - 2 * (t // 2) for t in total)
            if any(extra):
                warnings.warn(
                    "Using padding='same' with even kernel lengths and odd dilation may require "
                    "a zero-padded copy of the input be created", UserWarning, stacklevel=3)
            else:
                extra = None
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _ntuple(padding, nd)
        if any(p < 0 for p in padding):
            raise RuntimeError("negative padding is not supported")
    unbatched = input.ndim == nd + 1
    shape = ((1,) if unbatched else ()) + tuple(input.shape)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{_shape_text(weight.shape)}] instead")
    if shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape_text(weight.shape)}, expected "
            f"input{_shape_text(shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{shape[1]} channels instead")
    x = api.unsqueeze(input, 0) if unbatched else input
    if extra is not None:  # PyTorch pads the odd remainder on the far side first
        widths = []
        for e in reversed(extra):
            widths += [0, e]
        x = pad(x, widths)
    sizes = x.shape[2:]
    padded = tuple(s + 2 * p for s, p in zip(sizes, padding))
    eff = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    if any(e > p for e, p in zip(eff, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size")
    out = apply(OPS["convolution"], x, weight, bias, stride=stride, padding=padding,
                dilation=dilation, groups=groups)
    return api.squeeze(out, 0) if unbatched else out


def _c_type(dtype) -> str:
    return {"Float": "float", "Double": "double", "Half": "c10::Half", "Long": "long int",
            "Int": "int"}.get(scalar_type_name(dtype), scalar_type_name(dtype).lower())


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) over (N, C, L) or (C, L) input
    (``ConvolutionBackward0``)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) over (N, C, H, W) or (C, H, W) input
    (``ConvolutionBackward0``)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _pool_args(input, kernel_size, stride, padding, dilation, avg=False):
    if avg and input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{_shape_text(input.shape)}")
    if input.ndim not in (3, 4) or input._data.size == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel = _ntuple(kernel_size, 2)
    stride = kernel if stride is None or stride == [] or stride == () else _ntuple(stride, 2)
    padding = _ntuple(padding, 2)
    dilation = _ntuple(dilation, 2)
    for k, d, p in zip(kernel, dilation, padding):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}")
    return kernel, stride, padding, dilation


def _check_pool_output(input, kernel, stride, padding, dilation, ceil_mode) -> None:
    from ..ops.layers import pool_out_size

    c, h, w = input.shape[-3:]
    ho = pool_out_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    wo = pool_out_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{ho}x{wo}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window (``MaxPool2DWithIndicesBackward0``); with ``return_indices`` also
    the flat position in each input plane of every max."""
    kernel, stride, padding, dilation = _pool_args(input, kernel_size, stride, padding, dilation)
    _check_pool_output(input, kernel, stride, padding, dilation, ceil_mode)
    params = dict(kernel=kernel, stride=stride, padding=padding, dilation=dilation,
                  ceil_mode=bool(ceil_mode))
    out = apply(OPS["max_pool2d"], input, **params)
    if return_indices:
        from ..ops.layers import max_pool_indices

        return out, Tensor._wrap(max_pool_indices(input._data, **params))
    return out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over each window (``AvgPool2DBackward0``)."""
    kernel, stride, padding, _ = _pool_args(input, kernel_size, stride, padding, 1, avg=True)
    _check_pool_output(input, kernel, stride, padding, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return apply(OPS["avg_pool2d"], input, kernel=kernel, stride=stride, padding=padding,
                 ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
                 divisor_override=divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """Average over PyTorch's adaptive windows (``AdaptiveAvgPool2DBackward0``); an output of
    1 x 1 is ``input.mean((-1, -2), keepdim=True)`` (``MeanBackward1``), as PyTorch computes it."""
    if isinstance(output_size, (tuple, list)) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_shape_text(input.shape)}")
    if not isinstance(output_size, (tuple, list)):
        output_size = (output_size, output_size)
    size = tuple(int(input.shape[-2 + i] if s is None else s) for i, s in enumerate(output_size))
    if size == (1, 1):
        return api.mean(input, (-1, -2), keepdim=True)
    return apply(OPS["adaptive_avg_pool2d"], input, output_size=size)


# -- normalisation and embedding (rows under "# -- layers" in engine/ops/table.py) -----------------

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``NativeBatchNormBackward0``. Training: normalises with the batch's statistics and updates
    ``running_mean`` / ``running_var`` in place (unbiased variance, factor ``momentum``) without
    a version bump, as PyTorch's kernel; otherwise uses the running statistics."""
    if training:
        size = tuple(input.shape)
        n = size[0] * int(np.prod(size[2:]))
        if n == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.shape!r}")
    rm = None if running_mean is None else running_mean._data
    rv = None if running_var is None else running_var._data
    if not training:
        if rm is None or rv is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        rm, rv = rm.copy(), rv.copy()  # what this call normalised with, for its backward
    return apply(OPS["native_batch_norm"], input, weight, bias, running_mean=rm, running_var=rv,
                 training=bool(training), momentum=momentum, eps=eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``NativeLayerNormBackward0``: normalises over the trailing ``normalized_shape`` dims."""
    if isinstance(normalized_shape, int):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        "ints, not int")
    shape = tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    return apply(OPS["native_layer_norm"], input, weight, bias, normalized_shape=shape, eps=eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` looked up by ``input`` (``EmbeddingBackward0``, one edge: weight)."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: max_norm, scale_grad_by_freq and sparse are not implemented by the engine")
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{scalar_type_name(idx.dtype)}Tensor instead (while "
            "checking arguments for embedding)")
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    return apply(OPS["embedding"], weight, indices=idx, padding_idx=padding_idx,
                 num_weights=weight.shape[0])



# attention lives in engine/nn/attention.py (it builds on the functions above)
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402,F401
from .losses_margin import (  # noqa: E402,F401
    cosine_embedding_loss,
    gaussian_nll_loss,
    margin_ranking_loss,
    pairwise_distance,
    triplet_margin_loss,
)
from .losses_more import huber_loss, kl_div, smooth_l1_loss  # noqa: E402,F401
from .transposed import conv_transpose1d, conv_transpose2d  # noqa: E402,F401
