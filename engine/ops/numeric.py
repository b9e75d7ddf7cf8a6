"""The functions of the issue-14 API sweep that run rows of their own (``lerp``, ``logsumexp``,
``cumprod``, ``cummax``, ``mode``, ``cdist``, ``rot90``, ``bincount``, ``unique``...), and of
the rows the layers and distributions use (``unsafe_split``, ``baddbmm``, ``polygamma``, the
linalg factorizations, ``_standard_gamma``): argument handling in PyTorch's spelling and its
errors, then the row (``engine/ops/table.py``)."""

from __future__ import annotations

import builtins
import collections

import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..dtypes import c_type_name, scalar_type_name
from . import api
from .dispatch import apply, apply_variadic, edge, outputs_of
from .table import NODE_OPS as OPS_PAIRS
from .table import OPS


def _wrap(array):
    return api._T._wrap(np.asarray(array))


def _not_for(kernel, t, kinds="f"):
    """PyTorch's refusal of a dtype its kernel lacks (``"frac_cpu" not implemented for 'Long'``)."""
    if t._data.dtype.kind in kinds:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{scalar_type_name(t._data.dtype)}'")


def _dims(dim, ndim):
    if dim is None:
        return None
    d = api._norm_dims(dim, ndim)
    return d if isinstance(d, tuple) else (d,)


# -- pointwise with parameters ---------------------------------------------------------------------

def logit(input, eps=None):
    return apply(OPS["logit"], input, eps=None if eps is None else float(eps))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    info = np.finfo(input._data.dtype) if input._data.dtype.kind == "f" else None
    big = info.max if info is not None else 0
    return apply(OPS["nan_to_num"], input, nan=float(nan),
                 posinf=big if posinf is None else float(posinf),
                 neginf=-big if neginf is None else float(neginf))


def lerp(input, end, weight):
    _not_for("lerp_kernel_scalar" if not isinstance(weight, api._T) else "lerp_kernel_tensor",
             input, "iub")
    if isinstance(weight, api._T):
        return apply(OPS["lerp_tensor"], input, end, weight)
    return apply(OPS["lerp"], input, end, weight=weight)


def heaviside(input, values):
    if not isinstance(values, api._T):
        raise TypeError("heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    return apply(OPS["heaviside"], input, values)


def clamp_min(input, min):
    return apply(OPS["clamp_min"], api._promoted_for(input, min), min=min)


def clamp_max(input, max):
    return apply(OPS["clamp_max"], api._promoted_for(input, max), max=max)


def addcmul(input, tensor1, tensor2, *, value=1):
    return apply(OPS["addcmul"], input, tensor1, tensor2, value=value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return apply(OPS["addcdiv"], input, tensor1, tensor2, value=value)


def positive(input):
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# -- scans and reductions --------------------------------------------------------------------------

def cumprod(input, dim, *, dtype=None):
    d = api._norm_dim(dim, input.ndim)
    params = api._reduction_dtype(dtype)
    return apply(OPS["cumprod"], input, dim=d, **params)


def logcumsumexp(input, dim):
    _not_for("logcumsumexp_out_cpu", input, "iub")
    return apply(OPS["logcumsumexp"], input, dim=api._norm_dim(dim, input.ndim))


def logsumexp(input, dim, keepdim=False):
    dims = _dims(dim, input.ndim) if input.ndim else ()
    return apply(OPS["logsumexp"], input, dim=dims, keepdim=keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    dims = _dims(dim, input.ndim) if dim is not None and input.ndim else None
    return apply(OPS["nansum"], input, dim=dims, keepdim=keepdim, **api._reduction_dtype(dtype))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's ``nansum(x) / (~isnan(x)).sum()`` (DivBackward0 with a constant divisor)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {scalar_type_name(input._data.dtype)}")
    dims = _dims(dim, input.ndim) if dim is not None and input.ndim else None
    count = np.sum(~np.isnan(input._data), axis=dims, keepdims=keepdim)
    return api.div(nansum(input, dim, keepdim, dtype=dtype), _wrap(count))


def copysign(input, other):
    if isinstance(input, api._T) and not isinstance(other, api._T):
        return apply(OPS["copysign_scalar"], input, other)  # the Scalar overload: one edge
    return apply(OPS["copysign"], api._as_tensor_arg(input), api._as_tensor_arg(other))


def copysign_(self, other):
    return api.inplace("copysign_scalar" if not isinstance(other, api._T) else "copysign",
                       self, other)


class _Cummax(api._MinMax):
    _name = "cummax"


class _Cummin(api._MinMax):
    _name = "cummin"


class _Mode(api._MinMax):
    _name = "mode"


def _running_indices(data, dim, better):
    """The index of the running max (or min) along ``dim``; a tie takes the later index."""
    moved = np.moveaxis(data, dim, -1)
    idx = np.zeros(moved.shape, dtype=np.int64)
    if moved.shape[-1]:
        best = moved[..., 0].copy()
        pos = np.zeros(moved.shape[:-1], dtype=np.int64)
        for k in range(moved.shape[-1]):
            v = moved[..., k]
            take = better(v, best) | np.isnan(v)
            best = np.where(take, v, best)
            pos = np.where(take, k, pos)
            idx[..., k] = pos
    return np.moveaxis(idx, -1, dim)


def _cumulative(kind, input, dim, ret):
    d = api._norm_dim(dim, input.ndim)
    data = input._data
    if data.ndim == 0:  # (a clone: the engine's scan rows need a dimension)
        return ret(api.clone(input), _wrap(np.zeros((), dtype=np.int64)))
    better = np.greater_equal if kind == "max" else np.less_equal
    indices = _running_indices(data, d, better)
    values = apply(OPS[f"cum{kind}"], input, dim=d, indices=indices)
    return ret(values, _wrap(indices))


def cummax(input, dim):
    return _cumulative("max", input, dim, _Cummax)


def cummin(input, dim):
    return _cumulative("min", input, dim, _Cummin)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of those tied) and the index of its
    last occurrence, as PyTorch's."""
    data = input._data
    d = api._norm_dim(dim, builtins.max(data.ndim, 1))
    moved = np.moveaxis(data.reshape(data.shape or (1,)), d, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    idx = np.zeros(flat.shape[0], dtype=np.int64)
    for r, line in enumerate(flat):
        counts = collections.Counter(line.tolist())
        top = builtins.max(counts.values())
        value = builtins.min(v for v, c in counts.items() if c == top)
        idx[r] = np.flatnonzero(line == value)[-1]
    indices = np.expand_dims(idx.reshape(moved.shape[:-1]), d)
    if data.ndim == 0:
        indices = indices.reshape(())
        return _Mode(api.clone(input), _wrap(indices))
    values = apply(OPS["mode"], input, dim=d, indices=indices, keepdim=keepdim,
                   shape=data.shape)
    return _Mode(values, _wrap(indices if keepdim else np.squeeze(indices, d)))


def count_nonzero(input, dim=None):
    return apply(OPS["count_nonzero"], input, dim=_dims(dim, input.ndim))


def nonzero(input, *, as_tuple=False):
    if as_tuple:
        data = input._data
        if data.ndim == 0:
            return (_wrap(np.zeros(int(data != 0), dtype=np.int64)),)
        return tuple(_wrap(i.astype(np.int64)) for i in np.nonzero(data))
    return apply(OPS["nonzero"], input)


def argwhere(input):
    return apply(OPS["nonzero"], input)


def dist(input, other, p=2):
    return apply(OPS["dist"], input, other, p=float(p))


# -- bins, searches and sets -----------------------------------------------------------------------

def bincount(input, weights=None, minlength=0):
    _not_for("bincount_cpu", input)
    data = input._data
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return apply(OPS["bincount"], input, minlength=int(minlength))
    w = weights._data
    out = np.bincount(data, weights=w, minlength=int(minlength))
    return _wrap(out.astype(np.float64 if w.dtype == np.float64 else np.float32))


def histc(input, bins=100, min=0, max=0):
    _not_for("histogram_cpu", input, "iub")
    data = input._data
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    return apply(OPS["histc"], input, bins=int(bins), min=lo, max=hi)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    values = input if isinstance(input, api._T) else _wrap(np.asarray(
        input, dtype=sorted_sequence._data.dtype))
    right = right or side == "right"
    return apply(OPS["searchsorted"], sorted_sequence, values, right=right,
                 dtype=np.int32 if out_int32 else np.int64)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Sorted unique values (PyTorch's CPU unique sorts even with ``sorted=False``), optionally
    with the inverse indices and the counts; along ``dim``, unique slices."""
    data = input._data
    if dim is None:
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(data.shape)
        d = None
    else:
        d = api._norm_dim(dim, data.ndim)
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True,
                                            axis=d)
        inverse = inverse.reshape(-1)
    out = [apply(OPS["unique"], input, dim=d)]
    if return_inverse:
        out.append(_wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(_wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


# -- matrices and blocks ---------------------------------------------------------------------------

def rot90(input, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (api._norm_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    return apply(OPS["rot90"], input, k=int(k) % 4, dims=(d0, d1))


def cross(input, other, dim=None):
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
            "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
            "change to agree with that of linalg.cross in a future release.", UserWarning,
            stacklevel=2)
        shape = np.broadcast_shapes(input.shape, other.shape)
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    n = input.ndim
    d = api._norm_dim(dim, n)
    a, b = input.shape[d - n + input.ndim], other.shape[d - n + other.ndim]
    if a != 3 or b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} "
                           f"and {b}")
    return apply(OPS["linalg_cross"], input, other, dim=d - n)


def block_diag(*tensors):
    if not tensors:
        return _wrap(np.zeros((1, 0), dtype=np.float32))
    shapes = tuple(tuple(t.shape) for t in tensors)
    return apply_variadic("block_diag", tensors, shapes=shapes)


def cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    return apply(OPS["cdist"], x1, x2, p=float(p))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.ndim + 1
    d1, d2 = api._norm_dim(dim1, n), api._norm_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(OPS["diag_embed"], input, diagonal=int(offset), dim1=d1, dim2=d2)


def diagflat(input, offset=0):
    return apply(OPS["diag_embed"], api.reshape(input, -1), diagonal=int(offset))


def index_add(input, dim, index, source, *, alpha=1):
    d = api._norm_dim(dim, input.ndim)
    return apply(OPS["index_add"], input, source, dim=d, index=index._data, alpha=alpha)


def index_fill(input, dim, index, value):
    d = api._norm_dim(dim, input.ndim)
    value = value.item() if isinstance(value, api._T) else value
    return apply(OPS["index_fill"], input, dim=d, index=index._data, value=value)


def index_add_(self, dim, index, source, *, alpha=1):
    return api._inplace_by_op(OPS["index_add"], self, source, dim=api._norm_dim(dim, self.ndim),
                              index=index._data, alpha=alpha)


def index_fill_(self, dim, index, value):
    value = value.item() if isinstance(value, api._T) else value
    return api._inplace_by_op(OPS["index_fill"], self, dim=api._norm_dim(dim, self.ndim),
                              index=index._data, value=value)


# -- the in-place forms (their rows take parameters, or more than one tensor) ----------------------

def clamp_min_(self, min):
    return api.inplace("clamp_min", self, None, min=min)


def clamp_max_(self, max):
    return api.inplace("clamp_max", self, None, max=max)


def logit_(self, eps=None):
    return api.inplace("logit", self, None, eps=None if eps is None else float(eps))


def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    big = np.finfo(self._data.dtype).max if self._data.dtype.kind == "f" else 0
    return api.inplace("nan_to_num", self, None, nan=float(nan),
                       posinf=big if posinf is None else float(posinf),
                       neginf=-big if neginf is None else float(neginf))


def lerp_(self, end, weight):
    if isinstance(weight, api._T):
        return api._inplace_by_op(OPS["lerp_tensor"], self, end, weight)
    return api._inplace_by_op(OPS["lerp"], self, end, weight=weight)


def addcmul_(self, tensor1, tensor2, *, value=1):
    return api._inplace_by_op(OPS["addcmul"], self, tensor1, tensor2, value=value)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    return api._inplace_by_op(OPS["addcdiv"], self, tensor1, tensor2, value=value)


def heaviside_(self, values):
    return api._inplace_by_op(OPS["heaviside"], self, values)


def cumprod_(self, dim, *, dtype=None):
    return api._inplace_by_op(OPS["cumprod"], self, dim=api._norm_dim(dim, self.ndim),
                              **api._reduction_dtype(dtype))


def _no_inplace_derivative(name, spelled=None):
    """PyTorch has no derivative for these in-place forms: refused on a tensor that requires
    grad (with grad mode on), run as any in-place op otherwise."""
    def method(self):
        if api.grad_state.enabled and self._requires_grad:
            raise NotImplementedError(
                f"the derivative for 'inplace version of {name}' is not implemented.")
        return api.inplace(name, self)

    method.__name__ = method.__qualname__ = (spelled or name) + "_"
    return method


asinh_ = _no_inplace_derivative("asinh")
acosh_ = _no_inplace_derivative("acosh")
atanh_ = _no_inplace_derivative("atanh")
arcsinh_ = _no_inplace_derivative("asinh", "arcsinh")
arccosh_ = _no_inplace_derivative("acosh", "arccosh")
arctanh_ = _no_inplace_derivative("atanh", "arctanh")


def square_(self):
    return api.inplace("pow", self, None, exponent=2)


# -- two differentiable outputs, one node (``autograd.node.PairNode``) ----------------------------

class _Aminmax(tuple):
    """``torch.return_types.aminmax``: (min, max) with names."""

    def __new__(cls, min, max):
        return tuple.__new__(cls, (min, max))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


def _pair(name, input, arrays, **params):
    """Two outputs of ``input`` recorded by one PairNode (output k is ``arrays[k]``)."""
    from ..autograd.node import PairNode
    from ..events import OP_RECORDED, hub
    from .dispatch import edge

    outs = [_wrap(a) for a in arrays]
    if input._requires_grad and api.grad_state.enabled:
        data = input._data
        node = PairNode(OPS_PAIRS[name], {"x": data, "outs": tuple(arrays), **params},
                        (edge(input),), ((data.shape, data.dtype),), None, None, None)
        node.num_outputs = 2
        for k, t in enumerate(outs):
            t._requires_grad, t.grad_fn, t._output_nr = True, node, k
        if hub.active:
            for t in outs:
                hub.emit(OP_RECORDED, node=node, output=t)
    return tuple(outs)


def _var_mean_pair(name, input, dim, unbiased, keepdim, correction):
    fn = f"{name.split('_')[0]}_mean"
    dim, correction = api._var_std_args(fn, input, dim, unbiased, correction)
    spread = OPS[name.split("_")[0]].forward(input._data, dim, correction, keepdim)
    mean = np.mean(input._data, axis=dim, keepdims=keepdim)
    return _pair(name, input, (np.asarray(spread), np.asarray(mean, dtype=input._data.dtype)),
                 dim=dim, keepdim=keepdim, correction=correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean_pair("var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean_pair("std_mean", input, dim, unbiased, keepdim, correction)


def aminmax(input, *, dim=None, keepdim=False):
    data = input._data
    if data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    dims = None if dim is None else (api._norm_dim(dim, data.ndim),) if data.ndim else None
    lo = np.min(data, axis=dims, keepdims=keepdim)
    hi = np.max(data, axis=dims, keepdims=keepdim)
    return _Aminmax(*_pair("aminmax", input, (lo, hi), dim=dims, keepdim=keepdim))


# -- the rows the recurrent and attention layers and the distributions use ----------------------

def unsafe_split(tensor, split_size, dim=0):
    """``split`` into pieces autograd does not treat as views (each its own version counter, so
    in-place ops on them are allowed: PyTorch's cells split their gates so), one
    UnsafeSplitBackward0 for all."""
    from ..autograd.node import SplitNode

    if not isinstance(split_size, (int, np.integer)):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    d, sizes, _ = api._split_sizes(tensor, split_size, dim)
    data = tensor._data
    node = None
    if tensor._requires_grad and grad_state.enabled:
        node = SplitNode(OPS_PAIRS["unsafe_split"], {"dim": d, "sizes": tuple(sizes)},
                         (edge(tensor),), ((data.shape, data.dtype),), None, None, None)
        node.num_outputs = len(sizes)
    lead = (slice(None),) * d
    ends = np.cumsum([0, *sizes]).tolist()
    return tuple(outputs_of(node, [data[lead + (slice(a, b), ...)]
                                   for a, b in zip(ends, ends[1:])], False))


def unsafe_chunk(input, chunks, dim=0):
    api._chunk_checks(input, chunks)
    n = input._data.shape[api._norm_dim(dim, input.ndim)]
    return unsafe_split(input, (n + chunks - 1) // chunks if n else 0, dim)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * batch1 @ batch2`` over a batch of matrices (input broadcast)."""
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch2.shape[:2] != (batch1.shape[0], batch1.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: [{batch2.shape[0]}, "
            f"{batch2.shape[1]}].")
    dts = [t._data.dtype for t in (input, batch1, batch2)]
    if not dts[0] == dts[1] == dts[2]:
        raise RuntimeError(f"Input dtypes must be the same, got: input {c_type_name(dts[0])}, "
                           f"batch1: {c_type_name(dts[1])}, batch2: {c_type_name(dts[2])}")
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    if np.broadcast_shapes(input.shape, shape) != shape:
        api.expand(input.detach(), *shape)  # raises PyTorch's error for an input too large
    return apply(OPS["baddbmm"], input, batch1, batch2, beta=beta, alpha=alpha)


def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return api._inplace_by_op(OPS["baddbmm"], self, batch1, batch2, beta=beta, alpha=alpha)


def polygamma(n, input):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(OPS["polygamma"], input, n=int(n))


def polygamma_(self, n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return api.inplace("polygamma_", self, None, n=int(n))


def _safe_softmax(input, dim, dtype=None):
    """``torch._safe_softmax``: softmax giving 0 (not NaN) on a row that is all -inf."""
    if dtype is not None:
        input = api.to(input, dtype)
    return apply(OPS["safe_softmax"], input, dim=api._norm_dim(dim, input.ndim))


def _pack_padded_sequence(input, lengths, batch_first):
    """``torch._pack_padded_sequence``: (packed data, batch sizes) of sorted ``lengths``."""
    from .layers import batch_sizes_of

    lens = [int(v) for v in (lengths._data if isinstance(lengths, api._T) else lengths)]
    data = apply(OPS["pack_padded_sequence"], input, lengths=tuple(lens),
                 batch_first=bool(batch_first), shape=tuple(input.shape))
    return data, _wrap(np.array(batch_sizes_of(lens), dtype=np.int64))


def linalg_cholesky(input, *, upper=False):
    """``torch.linalg.cholesky``: the lower factor L of ``input = L Lᴴ`` (its transpose for
    ``upper``)."""
    out = apply(OPS["linalg_cholesky"], input)
    return out.mT if upper else out


def linalg_solve_triangular(input, other, *, upper, left=True, unitriangular=False):
    """``torch.linalg.solve_triangular``: X with ``input @ X = other`` (``left``)."""
    if not left or unitriangular:
        raise NotImplementedError("torch.linalg.solve_triangular with left=False or "
                                  "unitriangular=True is not implemented by the engine")
    return apply(OPS["solve_triangular"], input, other, upper=bool(upper))


def _standard_gamma(input, generator=None):
    """``torch._standard_gamma``: one Gamma(input, 1) draw per element (the default stream)."""
    if generator is not None:
        raise NotImplementedError("torch._standard_gamma with a generator is not implemented "
                                  "by the engine")
    return apply(OPS["standard_gamma"], input)
