"""Functions PyTorch writes as other ops (``narrow`` is a slice, ``meshgrid`` views and expands,
``kron`` multiplies two unsafe views, ``tensordot`` permutes, reshapes and multiplies): the same
calls in the same order here, so the graph has PyTorch's nodes (issue 14's API sweep)."""

from __future__ import annotations

import builtins

import numpy as np

from . import api
from .dispatch import apply
from .table import OPS


def _tensors(args, name):
    """``f(a, b)`` or ``f([a, b])``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def _one_or_many(fn, args):
    ts = _tensors(args, fn.__name__)
    out = tuple(fn(t) for t in ts)
    return out[0] if len(args) == 1 and not isinstance(args[0], (list, tuple)) else out


# -- views -----------------------------------------------------------------------------------------

def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = api._norm_dim(dim, input.ndim)
    size = input.shape[d]
    start = int(start.item() if isinstance(start, api._T) else start)
    length = int(length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but "
                         f"got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    return api.getitem(input, (slice(None),) * d + (slice(start, start + length),))


def unflatten(input, dim, sizes):
    d = api._norm_dim(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    known = int(np.prod([s for s in sizes if s != -1]))
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the "
            f"size of dim {dim} ({shape[d]}) in the input tensor")
    return api.view(input, *(shape[:d] + sizes + shape[d + 1:]))


def ravel(input):
    return api.view(api.contiguous(input), -1)


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return api.flip(input, [1])


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return api.flip(input, [0])


def broadcast_to(input, size):
    return api.expand(input, *size)


def broadcast_shapes(*shapes):
    """The broadcast of ``shapes`` as a Size, with PyTorch's message for a mismatch."""
    from ..tensor import Size

    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = [1] * builtins.max((len(s) for s in shapes), default=0)
    for k, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {k} had {shape}; but expected shape should be "
                    f"broadcastable to [{', '.join(map(str, result))}]")
            result[i] = shape[i]
    return Size(result)


def broadcast_tensors(*tensors):
    ts = _tensors(tensors, "broadcast_tensors")
    shape = np.broadcast_shapes(*[t.shape for t in ts])
    return tuple(t if tuple(t.shape) == shape else api.expand(t, *shape) for t in ts)


def _atleast(n):
    def one(t):
        if t.ndim >= n:
            return t
        if t.ndim == 0:
            return api.reshape(t, *([1] * n))
        if n == 2 or t.ndim == 2:  # 1-d to 2-d, or 2-d to 3-d: one unsqueeze
            return api.unsqueeze(t, 0 if n == 2 else -1)
        return api.unsqueeze(api.unsqueeze(t, 0), -1)  # 1-d to 3-d

    def fn(*tensors):
        return _one_or_many(one, tensors)

    fn.__name__ = f"atleast_{n}d"
    one.__name__ = fn.__name__
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


# -- stacks and splits -----------------------------------------------------------------------------

def hstack(tensors):
    ts = [atleast_1d(t) for t in tensors]
    return api.cat(ts, 0 if ts and ts[0].ndim == 1 else 1)


def vstack(tensors):
    return api.cat([atleast_2d(t) for t in tensors], 0)


row_stack = vstack


def dstack(tensors):
    return api.cat([atleast_3d(t) for t in tensors], 2)


def column_stack(tensors):
    return api.cat([api.reshape(t, t.numel(), 1) if t.ndim <= 1 else t for t in tensors], 1)


def tensor_split(input, indices_or_sections, dim=0):
    d = api._norm_dim(dim, input.ndim)
    n = input.shape[d]
    s = indices_or_sections
    if isinstance(s, api._T):
        s = s.tolist()
    if isinstance(s, (list, tuple)):
        bounds = [0, *[int(i) for i in s], n]
    else:
        sections = int(s)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(n, sections)
        bounds = [0]
        for k in range(sections):
            bounds.append(bounds[-1] + base + (1 if k < extra else 0))
    lead = (slice(None),) * d
    return tuple(api.getitem(input, lead + (slice(builtins.min(a, n), builtins.max(
        builtins.min(b, n), builtins.min(a, n))),)) for a, b in zip(bounds, bounds[1:]))


def _split_along(name, dim, least):
    def fn(input, indices_or_sections):
        if input.ndim < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                f"tensor with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        s = indices_or_sections
        if isinstance(s, int) and (s == 0 or input.shape[d] % s):
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {d}, but the size of the "
                f"dimension {input.shape[d]} is not divisible by the split_size {s}!")
        return tensor_split(input, s, d)

    fn.__name__ = name
    return fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


# -- differences, grids, products ------------------------------------------------------------------

def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = api._norm_dim(dim, input.ndim)
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        input = api.cat(parts, d)
    for _ in range(int(n)):
        length = input.shape[d]
        if length == 0:
            break
        hi, lo = narrow(input, d, 1, length - 1), narrow(input, d, 0, length - 1)
        input = (api._MADE["logical_xor"](hi, lo) if input._data.dtype == np.bool_
                 else api.sub(hi, lo))
    return input


def meshgrid(*tensors, indexing=None):
    ts = _tensors(tensors, "meshgrid")
    if indexing is None:
        import warnings

        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                         f"received: {indexing}")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    grid = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[i] = -1
        out.append(api.expand(api.view(t, *shape), *grid))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    ts = _tensors(tensors, "cartesian_prod")
    if len(ts) == 1:
        return ts[0]
    return api.stack([api.flatten(g) for g in meshgrid(*ts, indexing="ij")], 1)


def take_along_dim(input, indices, dim=None):
    if dim is None:
        return api.gather(api.view(input, -1), 0, api.view(indices, -1))
    d = api._norm_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    rest = np.broadcast_shapes(tuple(input.shape[:d]) + tuple(input.shape[d + 1:]),
                               tuple(indices.shape[:d]) + tuple(indices.shape[d + 1:]))
    own = list(rest[:d]) + [input.shape[d]] + list(rest[d:])
    idx = list(rest[:d]) + [indices.shape[d]] + list(rest[d:])
    return api.gather(api.expand(input, *own), d, api.expand(indices, *idx))


def _unsafe_view(t, shape):
    return apply(OPS["reshape_copy"], t, shape=tuple(shape), src_shape=t._data.shape)


def kron(input, other):
    n = builtins.max(input.ndim, other.ndim)
    a_shape, b_shape, out_shape = [], [], []
    for i in range(n):
        a = input.shape[i - n + input.ndim] if i >= n - input.ndim else 1
        b = other.shape[i - n + other.ndim] if i >= n - other.ndim else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        out_shape.append(a * b)
    return _unsafe_view(api.mul(_unsafe_view(input, a_shape), _unsafe_view(other, b_shape)),
                        out_shape)


def tensordot(a, b, dims=2, out=None):
    """PyTorch's tensordot: the contracted dims permuted last (first for ``b``), one mm, or one
    dot when everything is contracted."""
    if isinstance(dims, api._T):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    given = list(zip(dims_a, dims_b))  # PyTorch's message names the dims as given
    dims_a = [api._norm_dim(d, a.ndim) for d in dims_a]
    dims_b = [api._norm_dim(d, b.ndim) for d in dims_b]
    csize = 1
    t1, t2 = a, b
    for da, db, (ga, gb) in zip(dims_a, dims_b, given):
        s1, s2 = a.shape[da], b.shape[db]
        if s2 == 1:
            t1 = api.sum(t1, da, True)
        elif s1 == 1:
            t2 = api.sum(t2, db, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                                   f"in dim {ga} and second has size {s2} in dim {gb}")
            csize *= s1
    p1 = [i for i in range(a.ndim) if i not in dims_a]
    p2 = [i for i in range(b.ndim) if i not in dims_b]
    rsizes = [t1.shape[i] for i in p1] + [t2.shape[i] for i in p2]
    size1 = int(np.prod([t1.shape[i] for i in p1]))
    size2 = int(np.prod([t2.shape[i] for i in p2]))
    t1 = api.permute(t1, p1 + dims_a)
    t2 = api.permute(t2, dims_b + p2)
    if size1 == 1 and size2 == 1:
        result = api.dot(api.flatten(t1), api.flatten(t2))
    else:
        result = api.mm(api.reshape(t1, size1, csize), api.reshape(t2, csize, size2))
    result = api.reshape(result, *rsizes)
    return result if out is None else api.write_out("tensordot", result, out)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if isinstance(repeats, api._T):
        if repeats.numel() != 1:
            raise NotImplementedError("repeat_interleave with per-element repeats")
        repeats = int(repeats.item())
    if dim is None:
        input = api.flatten(input)
        dim = 0
    d = api._norm_dim(dim, input.ndim)
    sizes = list(input.shape)
    sizes.insert(d + 1, int(repeats))
    expanded = api.clone(api.expand(api.unsqueeze(input, d + 1), *sizes))
    return api.flatten(expanded, d, d + 1)


def msort(input):
    return api.sort(input, 0)[0]


def float_power(input, exponent):
    if isinstance(input, api._T):
        input = api.to(input, np.float64)
    if isinstance(exponent, api._T):
        exponent = api.to(exponent, np.float64)
    return api.pow(input, exponent)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: ``F.dropout`` (its random draws and nodes)."""
    from ..nn import functional as F

    return F.dropout(input, p, training=train)
