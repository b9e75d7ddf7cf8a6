"""The one table of ops: forward, vector-Jacobian rules and PyTorch's node name, one row per op.

A rule is ``vjp(g, ans, *inputs, **params) -> gradient for that input``. ``inputs`` are the input
arrays the row saves (``saves`` names them: x, y, z for inputs 0-2, r for the result; others arrive
as None), ``ans`` the result when saved. Rules never undo broadcasting: the backward loop sums each
gradient down to its input's shape (``autograd.node._reduce_to``). Rows with ``vjps`` None are not
differentiable on purpose (comparisons, argmax, ...): their outputs never require grad.
"""

from __future__ import annotations

import numpy as np


class Op:
    __slots__ = ("name", "node_name", "forward", "vjps", "saves", "roles", "view", "promote")

    def __init__(self, name, node_name, forward, vjps, saves="", view=False, promote=True,
                 roles=("self", "other", "third")):
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.vjps = vjps
        self.saves = saves
        self.roles = roles
        self.view = view  # the result shares memory (and version counter) with input 0
        self.promote = promote  # inputs are cast to PyTorch's common result type first

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {self.node_name!r})"


OPS: dict[str, Op] = {}


def row(name, node_name, forward, *vjps, saves="", **kw) -> None:
    OPS[name] = Op(name, node_name, forward, vjps if vjps else None, saves, **kw)


def nondiff(name, forward, **kw) -> None:
    OPS[name] = Op(name, None, forward, None, "", **kw)


# -- helpers the rules share -----------------------------------------------------------------------

def _expand_reduced(g, shape, dim, keepdim):
    """Broadcastable form of a gradient of a reduction over ``dim``."""
    if dim is None:
        return np.broadcast_to(g, shape)
    if not keepdim:
        dims = dim if isinstance(dim, tuple) else (dim,)
        for d in sorted(d % len(shape) for d in dims):
            g = np.expand_dims(g, d)
    return np.broadcast_to(g, shape)


def _count(shape, dim):
    if dim is None:
        return int(np.prod(shape))
    dims = dim if isinstance(dim, tuple) else (dim,)
    return int(np.prod([shape[d] for d in dims]))


def _minmax_grad(g, ans, x, dim, keepdim):
    """Gradient of max/min: evenly split among ties for the full reduction (MaxBackward1), to the
    selected index along ``dim`` (MaxBackward0)."""
    if dim is None:
        mask = x == ans
        return np.where(mask, g / mask.sum(), 0).astype(x.dtype)
    a = ans if keepdim else np.expand_dims(ans, dim)
    gg = g if keepdim else np.expand_dims(g, dim)
    idx = np.argmax(x == a, axis=dim)
    out = np.zeros_like(x)
    np.put_along_axis(out, np.expand_dims(idx, dim), gg, axis=dim)
    return out


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x, dim):
    s = x - x.max(axis=dim, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=dim, keepdims=True))


def _matmul_vjp_a(g, ans, a, b):
    if b.ndim == 1:
        return np.multiply.outer(g, b) if a.ndim <= 2 else g[..., None] * b
    return g @ np.swapaxes(b, -1, -2)


def _matmul_vjp_b(g, ans, a, b):
    if a.ndim == 1:
        return np.multiply.outer(a, g) if b.ndim <= 2 else a[:, None] * g[..., None, :]
    return np.swapaxes(a, -1, -2) @ g


def _pow_base_grad(g, ans, x, exponent):
    if exponent == 0:
        return np.zeros_like(x)
    return g * exponent * x ** (exponent - 1)


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x)))).astype(x.dtype)


def _clamp(x, min=None, max=None):  # noqa: A002 - PyTorch's parameter names
    if min is not None:
        x = np.maximum(x, np.asarray(min, dtype=x.dtype))
    if max is not None:
        x = np.minimum(x, np.asarray(max, dtype=x.dtype))
    return x


def _clamp_grad(g, ans, x, min=None, max=None):  # noqa: A002
    mask = np.ones(x.shape, dtype=bool)
    if min is not None:
        mask &= x >= min
    if max is not None:
        mask &= x <= max
    return np.where(mask, g, 0).astype(g.dtype)


def _index_backward(g, ans, x, index, shape):
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


def _unpermute(g, dims):
    return np.transpose(g, np.argsort(dims))


def _cat_grad(i):
    def rule(g, ans, *inputs, dim, sizes):
        start = sum(sizes[:i])
        sl = [slice(None)] * g.ndim
        sl[dim] = slice(start, start + sizes[i])
        return g[tuple(sl)]
    return rule


def _stack_grad(i):
    return lambda g, ans, *inputs, dim: np.take(g, i, axis=dim)


# -- arithmetic ------------------------------------------------------------------------------------
row("add", "AddBackward0", lambda x, y, alpha=1: x + y if alpha == 1 else x + alpha * y,
    lambda g, ans, x, y, alpha=1: g,
    lambda g, ans, x, y, alpha=1: g if alpha == 1 else g * alpha)
row("sub", "SubBackward0", lambda x, y, alpha=1: x - y if alpha == 1 else x - alpha * y,
    lambda g, ans, x, y, alpha=1: g,
    lambda g, ans, x, y, alpha=1: -g if alpha == 1 else -g * alpha)
row("rsub", "RsubBackward1", lambda x, y: y - x,
    lambda g, ans, x, y: -g, lambda g, ans, x, y: g)
row("mul", "MulBackward0", np.multiply,
    lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x, saves="xy")
row("div", "DivBackward0", np.true_divide,
    lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * x / (y * y), saves="xy")
row("neg", "NegBackward0", np.negative, lambda g, ans, x: -g)
row("pow", "PowBackward0", lambda x, exponent: x ** exponent, _pow_base_grad, saves="x")
row("pow_tensor", "PowBackward1", np.power,
    lambda g, ans, x, y: g * y * x ** (y - 1),
    lambda g, ans, x, y: g * ans * np.log(np.where(x > 0, x, np.where(x == 0, 1, np.nan))),
    saves="xyr")
row("rpow", "PowBackward2", lambda x, base: np.power(np.asarray(base, x.dtype), x),
    lambda g, ans, x, base: g * ans * np.log(base), saves="r")
row("abs", "AbsBackward0", np.abs, lambda g, ans, x: g * np.sign(x), saves="x")
row("exp", "ExpBackward0", np.exp, lambda g, ans, x: g * ans, saves="r")
row("log", "LogBackward0", np.log, lambda g, ans, x: g / x, saves="x")
row("sqrt", "SqrtBackward0", np.sqrt, lambda g, ans, x: g / (2 * ans), saves="r")
row("sin", "SinBackward0", np.sin, lambda g, ans, x: g * np.cos(x), saves="x")
row("cos", "CosBackward0", np.cos, lambda g, ans, x: -g * np.sin(x), saves="x")
row("tanh", "TanhBackward0", np.tanh, lambda g, ans, x: g * (1 - ans * ans), saves="r")
row("sigmoid", "SigmoidBackward0", _sigmoid, lambda g, ans, x: g * ans * (1 - ans), saves="r")
row("relu", "ReluBackward0", lambda x: np.maximum(x, 0),
    lambda g, ans, x: np.where(ans > 0, g, 0).astype(g.dtype), saves="r")
row("clamp", "ClampBackward1", _clamp, _clamp_grad, saves="x")
row("maximum", "MaximumBackward0", np.maximum,
    lambda g, ans, x, y: np.where(x > y, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    lambda g, ans, x, y: np.where(y > x, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    saves="xy")
row("minimum", "MinimumBackward0", np.minimum,
    lambda g, ans, x, y: np.where(x < y, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    lambda g, ans, x, y: np.where(y < x, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    saves="xy")
row("where", "WhereBackward0", lambda cond, x, y: np.where(cond, x, y),
    None,
    lambda g, ans, cond, x, y: np.where(cond, g, 0).astype(g.dtype),
    lambda g, ans, cond, x, y: np.where(cond, 0, g).astype(g.dtype),
    saves="x", roles=("condition", "self", "other"))

# -- reductions ------------------------------------------------------------------------------------
row("sum", "SumBackward0", lambda x, shape: np.sum(x, dtype=_sum_dtype(x)),
    lambda g, ans, x, shape: np.broadcast_to(g, shape))
row("sum_dim", "SumBackward1",
    lambda x, dim, keepdim, shape: np.sum(x, axis=dim, keepdims=keepdim, dtype=_sum_dtype(x)),
    lambda g, ans, x, dim, keepdim, shape: _expand_reduced(g, shape, dim, keepdim))
row("mean", "MeanBackward0", lambda x, shape: np.mean(x, dtype=x.dtype),
    lambda g, ans, x, shape: np.broadcast_to(g / _count(shape, None), shape))
row("mean_dim", "MeanBackward1",
    lambda x, dim, keepdim, shape: np.mean(x, axis=dim, keepdims=keepdim, dtype=x.dtype),
    lambda g, ans, x, dim, keepdim, shape: _expand_reduced(g / _count(shape, dim), shape, dim, keepdim))
row("max", "MaxBackward1", lambda x: np.max(x),
    lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr")
row("min", "MinBackward1", lambda x: np.min(x),
    lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr")
row("max_dim", "MaxBackward0", lambda x, dim, keepdim: np.max(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _minmax_grad(g, ans, x, dim, keepdim), saves="xr")
row("min_dim", "MinBackward0", lambda x, dim, keepdim: np.min(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _minmax_grad(g, ans, x, dim, keepdim), saves="xr")
row("softmax", "SoftmaxBackward0", lambda x, dim: _softmax(x, dim),
    lambda g, ans, x, dim: ans * (g - (g * ans).sum(axis=dim, keepdims=True)), saves="r")
row("log_softmax", "LogSoftmaxBackward0", lambda x, dim: _log_softmax(x, dim),
    lambda g, ans, x, dim: g - np.exp(ans) * g.sum(axis=dim, keepdims=True), saves="r")

# -- matrix ----------------------------------------------------------------------------------------
row("mm", "MmBackward0", np.matmul,
    lambda g, ans, a, b: g @ b.T, lambda g, ans, a, b: a.T @ g, saves="xy")
row("mv", "MvBackward0", np.matmul,
    lambda g, ans, a, b: np.multiply.outer(g, b), lambda g, ans, a, b: a.T @ g, saves="xy")
row("dot", "DotBackward0", np.dot,
    lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves="xy")
row("bmm", "BmmBackward0", np.matmul, _matmul_vjp_a, _matmul_vjp_b, saves="xy")
row("addmm", "AddmmBackward0", lambda c, a, b: c + a @ b,
    lambda g, ans, c, a, b: g, lambda g, ans, c, a, b: g @ b.T,
    lambda g, ans, c, a, b: a.T @ g, saves="yz", roles=("self", "mat1", "mat2"))

# -- shape (views share memory with their input) ---------------------------------------------------
row("view", "ViewBackward0", lambda x, shape, src_shape: x.reshape(shape),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape), view=True)
row("reshape_copy", "UnsafeViewBackward0", lambda x, shape, src_shape: x.reshape(shape).copy(),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape))
row("transpose", "TransposeBackward0", lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
    lambda g, ans, x, dim0, dim1: np.swapaxes(g, dim0, dim1), view=True)
row("t", "TBackward0", lambda x: x.T, lambda g, ans, x: g.T, view=True)
row("permute", "PermuteBackward0", lambda x, dims: np.transpose(x, dims),
    lambda g, ans, x, dims: _unpermute(g, dims), view=True)
row("squeeze", "SqueezeBackward0", lambda x, src_shape: x.reshape(tuple(n for n in src_shape if n != 1)),
    lambda g, ans, x, src_shape: g.reshape(src_shape), view=True)
row("squeeze_dim", "SqueezeBackward1", lambda x, dim, src_shape: x.reshape(
        tuple(n for i, n in enumerate(src_shape) if i != dim or n != 1)),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True)
row("unsqueeze", "UnsqueezeBackward0", lambda x, dim: np.expand_dims(x, dim),
    lambda g, ans, x, dim: np.squeeze(g, dim), view=True)
row("expand", "ExpandBackward0", lambda x, shape: np.broadcast_to(x, shape),
    lambda g, ans, x, shape: g, view=True)
row("select", "SelectBackward0", lambda x, dim, index, src_shape: np.take(x, index, axis=dim) if dim else x[index],
    lambda g, ans, x, dim, index, src_shape: _index_backward(
        g, ans, x, (slice(None),) * dim + (index,), src_shape), view=True)
row("slice", "SliceBackward0", lambda x, index, src_shape: x[index],
    lambda g, ans, x, index, src_shape: _index_backward(g, ans, x, index, src_shape), view=True)
row("index", "IndexBackward0", lambda x, index, src_shape: x[index],
    lambda g, ans, x, index, src_shape: _index_backward(g, ans, x, index, src_shape))
row("clone", "CloneBackward0", lambda x: x.copy(), lambda g, ans, x: g)
row("to_dtype", "ToCopyBackward0", lambda x, dtype: x.astype(dtype),
    lambda g, ans, x, dtype: g, promote=False)
row("cat", "CatBackward0", lambda *xs, dim, sizes: np.concatenate(xs, axis=dim))
row("stack", "StackBackward0", lambda *xs, dim: np.stack(xs, axis=dim))

# -- not differentiable, on purpose ----------------------------------------------------------------
for _name, _fn in {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_not": np.logical_not,
    "sign": np.sign, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "floor_divide": np.floor_divide, "remainder": np.remainder,
}.items():
    nondiff(_name, _fn)
nondiff("argmax", lambda x, dim=None, keepdim=False: np.argmax(x, axis=dim, keepdims=keepdim))
nondiff("argmin", lambda x, dim=None, keepdim=False: np.argmin(x, axis=dim, keepdims=keepdim))


def _sum_dtype(x):
    # PyTorch sums integers and bools as int64
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def variadic_rules(name: str, n: int):
    """Rules for ops over a list of tensors (cat, stack): one per input, made on demand."""
    make = {"cat": _cat_grad, "stack": _stack_grad}[name]
    return tuple(make(i) for i in range(n))


# -- rows used by in-place writes and by matmul's PyTorch decomposition ----------------------------
row("reciprocal", "ReciprocalBackward0", np.reciprocal, lambda g, ans, x: -g * ans * ans, saves="r")
row("squeeze_dim4", "SqueezeBackward4", lambda x, dim, src_shape: np.squeeze(x, dim),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True)
row("zero", "ZeroBackward0", np.zeros_like, lambda g, ans, x: np.zeros_like(g))
row("fill", "FillBackward0", lambda x, value: np.full_like(x, value),
    lambda g, ans, x, value: np.zeros_like(g))
row("copy", "CopyBackwards", lambda x, y: np.broadcast_to(y, x.shape).astype(x.dtype),
    lambda g, ans, x, y: np.zeros_like(g), lambda g, ans, x, y: g, promote=False)
row("copy_slices", "torch::autograd::CopySlices", None,
    lambda g, ans, x, y, index: _zero_at(g, index), lambda g, ans, x, y, index: g[index])


def _zero_at(g, index):
    g = g.copy()
    g[index] = 0
    return g
