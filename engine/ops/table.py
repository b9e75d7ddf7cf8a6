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
    __slots__ = ("name", "node_name", "forward", "vjps", "saves", "roles", "view", "promote",
                 "floating", "inputs", "save_if", "save_users")

    def __init__(self, name, node_name, forward, vjps, saves="", view=False, promote=True,
                 roles=("self", "other", "third"), floating=False, inputs=None, save_if=None):
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.vjps = vjps
        self.saves = saves
        self.roles = roles
        self.view = view  # the result shares memory (and version counter) with input 0
        self.promote = promote  # inputs are cast to PyTorch's common result type first
        # integer and bool inputs compute in the default float (``torch.exp(int_tensor)``)
        self.floating = floating
        # Which arguments are the node's inputs (one ``next_functions`` entry and one rule each);
        # None: all. PyTorch leaves out a Scalar overload's number (``1 - x``: RsubBackward1 has
        # one edge) and where's condition, but keeps a wrapped number (``x * 2``: two edges).
        self.inputs = inputs
        # {argument position: the input positions whose gradient needs it}: PyTorch saves an
        # input only when a gradient that reads it will be computed (``x * y`` with only x
        # requiring grad saves y alone); an argument not listed is saved whenever the row saves it.
        # Kept as {position: bit mask of those inputs} (only for rows whose inputs are their
        # arguments, ``inputs`` None)
        self.save_if = None if save_if is None else {
            i: sum(1 << k for k in users) for i, users in save_if.items()}
        self.save_users = save_if

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {self.node_name!r})"


OPS: dict[str, Op] = {}


def row(name, node_name, forward, *vjps, saves="", table=None, **kw) -> None:
    (OPS if table is None else table)[name] = Op(
        name, node_name, forward, vjps if vjps else None, saves, **kw)


# PyTorch's fused backward kernels (``tanh_backward``...), which only a create_graph backward
# records (TanhBackwardBackward0). Rows as any other, kept apart from OPS only because
# ``tests/engine/ops/test_gradcheck.py`` checks every OPS row against its own input recipes
# (``tests/engine/test_class_names_and_second_order.py`` checks these against PyTorch's third derivatives).
BACKWARD_OPS: dict[str, Op] = {}


# A rule calls them as ``_tanh_grad(g, y)``: on arrays the formula itself; on create_graph's
# traced values (which have ``fused``) the op ``BACKWARD_OPS[name]``, so the graph has PyTorch's
# node.

def _tanh_grad(g, y):
    if g.__class__ is np.ndarray or not hasattr(g, "fused"):
        return g * (1 - y * y)
    return g.fused(BACKWARD_OPS["tanh_backward"], y)


def _sigmoid_grad(g, y):
    if g.__class__ is np.ndarray or not hasattr(g, "fused"):
        return g * y * (1 - y)
    return g.fused(BACKWARD_OPS["sigmoid_backward"], y)


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
    return g * (exponent * x ** (exponent - 1))  # PyTorch's grouping (pow_backward)


def _sigmoid(x):
    # exp of a non-positive number only, so large |x| neither overflows nor warns
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


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
    out = np.zeros_like(g, shape=shape)  # zeros_like, so higher-order backward can trace it
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
row("rsub", "RsubBackward1", lambda x, y: y - x, lambda g, ans, x, y=None: -g, inputs=(0,))
row("mul", "MulBackward0", np.multiply,
    lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x, saves="xy",
    save_if={0: (1,), 1: (0,)})
row("div", "DivBackward0", np.true_divide,
    lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ((x / y) / y), saves="xy", floating=True,
    save_if={0: (1,), 1: (0, 1)})
row("neg", "NegBackward0", np.negative, lambda g, ans, x: -g)
row("pow", "PowBackward0", lambda x, exponent: x ** exponent, _pow_base_grad, saves="x")
row("pow_tensor", "PowBackward1", np.power,
    lambda g, ans, x, y: g * y * x ** (y - 1),
    lambda g, ans, x, y: g * ans * np.log(np.where(x > 0, x, np.where(x == 0, 1, np.nan))),
    saves="xyr")
row("rpow", "PowBackward2", lambda x, base: np.power(np.asarray(base, x.dtype), x),
    lambda g, ans, x, base: g * ans * np.log(base), saves="r")
row("abs", "AbsBackward0", np.abs, lambda g, ans, x: g * np.sign(x), saves="x")
row("exp", "ExpBackward0", np.exp, lambda g, ans, x: g * ans, saves="r", floating=True)
row("log", "LogBackward0", np.log, lambda g, ans, x: g / x, saves="x", floating=True)
row("sqrt", "SqrtBackward0", np.sqrt, lambda g, ans, x: g / (2 * ans), saves="r", floating=True)
row("sin", "SinBackward0", np.sin, lambda g, ans, x: g * np.cos(x), saves="x", floating=True)
row("cos", "CosBackward0", np.cos, lambda g, ans, x: -g * np.sin(x), saves="x", floating=True)
row("tanh", "TanhBackward0", np.tanh, lambda g, ans, x: _tanh_grad(g, ans), saves="r",
    floating=True)
row("sigmoid", "SigmoidBackward0", _sigmoid, lambda g, ans, x: _sigmoid_grad(g, ans), saves="r",
    floating=True)
# their backward kernels (derivatives.yaml's tanh_backward / sigmoid_backward)
row("tanh_backward", "TanhBackwardBackward0", lambda g, y: g * (1 - y * y),
    lambda gg, ans, g, y: _tanh_grad(gg, y),
    lambda gg, ans, g, y: gg * (-2 * y * g),
    saves="xy", roles=("grad_output", "output"), table=BACKWARD_OPS)
row("sigmoid_backward", "SigmoidBackwardBackward0", lambda g, y: g * y * (1 - y),
    lambda gg, ans, g, y: _sigmoid_grad(gg, y),
    lambda gg, ans, g, y: gg * g * (-2 * y + 1),
    saves="xy", roles=("grad_output", "output"), table=BACKWARD_OPS)
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
    lambda g, ans, cond, x, y: np.where(cond, g, 0).astype(g.dtype),
    lambda g, ans, cond, x, y: np.where(cond, 0, g).astype(g.dtype),
    saves="x", roles=("condition", "self", "other"), inputs=(1, 2))

# -- reductions ------------------------------------------------------------------------------------
row("sum", "SumBackward0",
    lambda x, shape, dtype=None: np.sum(x, dtype=_sum_dtype(x) if dtype is None else dtype),
    lambda g, ans, x, shape, dtype=None: np.broadcast_to(g, shape))
row("sum_dim", "SumBackward1",
    lambda x, dim, keepdim, shape, dtype=None: np.sum(
        x, axis=dim, keepdims=keepdim, dtype=_sum_dtype(x) if dtype is None else dtype),
    lambda g, ans, x, dim, keepdim, shape, dtype=None: _expand_reduced(g, shape, dim, keepdim))
row("mean", "MeanBackward0",
    lambda x, shape, dtype=None: np.mean(x, dtype=x.dtype if dtype is None else dtype),
    # PyTorch's ``grad.expand(sizes) / numel``: a new dense gradient (dividing first would hand
    # on a broadcast view, which AccumulateGrad copies rather than keeps: a different version)
    lambda g, ans, x, shape, dtype=None: np.broadcast_to(g, shape) / _count(shape, None))
row("mean_dim", "MeanBackward1",
    lambda x, dim, keepdim, shape, dtype=None: np.mean(
        x, axis=dim, keepdims=keepdim, dtype=x.dtype if dtype is None else dtype),
    lambda g, ans, x, dim, keepdim, shape, dtype=None: _expand_reduced(
        g, shape, dim, keepdim) / _count(shape, dim))
row("max", "MaxBackward1", lambda x: np.max(x),
    lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr")
row("min", "MinBackward1", lambda x: np.min(x),
    lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr")
row("max_dim", "MaxBackward0", lambda x, dim, keepdim: np.max(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _minmax_grad(g, ans, x, dim, keepdim), saves="xr")
row("min_dim", "MinBackward0", lambda x, dim, keepdim: np.min(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _minmax_grad(g, ans, x, dim, keepdim), saves="xr")
row("softmax", "SoftmaxBackward0", lambda x, dim: _softmax(x, dim),
    lambda g, ans, x, dim: ans * (g - (g * ans).sum(axis=dim, keepdims=True)), saves="r",
    floating=True)
row("log_softmax", "LogSoftmaxBackward0", lambda x, dim: _log_softmax(x, dim),
    lambda g, ans, x, dim: g - np.exp(ans) * g.sum(axis=dim, keepdims=True), saves="r",
    floating=True)

# -- matrix ----------------------------------------------------------------------------------------
def _mm_grad_a(g, ans, a, b, cols=None):
    # PyTorch's mm_mat1_backward: a column-major input gets its gradient column-major too
    return (b @ g.T).T if cols is not None and cols[0] else g @ b.T


def _mm_grad_b(g, ans, a, b, cols=None):
    return (g.T @ a).T if cols is not None and cols[1] else a.T @ g


# ``cols`` (given only when an input is column-major, e.g. a transposed weight): which inputs are
row("mm", "MmBackward0", lambda a, b, cols=None: np.matmul(a, b), _mm_grad_a, _mm_grad_b,
    saves="xy",
    roles=("self", "mat2"), save_if={0: (1,), 1: (0,)})
row("mv", "MvBackward0", np.matmul,
    lambda g, ans, a, b: np.multiply.outer(g, b), lambda g, ans, a, b: a.T @ g, saves="xy",
    roles=("self", "vec"), save_if={0: (1,), 1: (0,)})
row("dot", "DotBackward0", np.dot,
    lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves="xy",
    roles=("self", "tensor"), save_if={0: (1,), 1: (0,)})
row("bmm", "BmmBackward0", np.matmul, _matmul_vjp_a, _matmul_vjp_b, saves="xy",
    roles=("self", "mat2"), save_if={0: (1,), 1: (0,)})
row("addmm", "AddmmBackward0", lambda c, a, b, cols=None: c + a @ b,
    lambda g, ans, c, a, b, cols=None: g, lambda g, ans, c, a, b, cols=None: _mm_grad_a(
        g, ans, a, b, cols),
    lambda g, ans, c, a, b, cols=None: _mm_grad_b(g, ans, a, b, cols), saves="yz", roles=("self", "mat1", "mat2"),
    save_if={1: (2,), 2: (1,)})

# -- shape (views share memory with their input) ---------------------------------------------------
row("view", "ViewBackward0", lambda x, shape, src_shape: x.reshape(shape),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape), view=True)
row("reshape_alias", "ReshapeAliasBackward0", lambda x, shape, src_shape: x.reshape(shape),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape), view=True)
row("alias", "AliasBackward0", lambda x: x.view(), lambda g, ans, x: g, view=True)
row("reshape_copy", "UnsafeViewBackward0", lambda x, shape, src_shape: x.reshape(shape).copy(),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape))
# dims None: a 0-d tensor (PyTorch's transpose(0, -1) of a scalar is the scalar, as a view)
row("transpose", "TransposeBackward0",
    lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1) if dim0 is not None else np.transpose(x),
    lambda g, ans, x, dim0, dim1: np.swapaxes(g, dim0, dim1) if dim0 is not None else g,
    view=True)
row("t", "TBackward0", lambda x: x.T, lambda g, ans, x: g.T, view=True)
row("permute", "PermuteBackward0", lambda x, dims: np.transpose(x, dims),
    lambda g, ans, x, dims: _unpermute(g, dims), view=True)
row("squeeze", "SqueezeBackward0",
    lambda x, src_shape: x.reshape(tuple(n for n in src_shape if n != 1)),
    lambda g, ans, x, src_shape: g.reshape(src_shape), view=True)
row("squeeze_dim", "SqueezeBackward1", lambda x, dim, src_shape: x.reshape(
        tuple(n for i, n in enumerate(src_shape) if i != dim or n != 1)),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True)
row("squeeze_dims", "SqueezeBackward2", lambda x, dims, src_shape: x.reshape(
        tuple(n for i, n in enumerate(src_shape) if i not in dims or n != 1)),
    lambda g, ans, x, dims, src_shape: g.reshape(src_shape), view=True)
row("unsqueeze", "UnsqueezeBackward0", lambda x, dim: np.expand_dims(x, dim),
    lambda g, ans, x, dim: np.squeeze(g, dim), view=True)
row("expand", "ExpandBackward0", lambda x, shape: np.broadcast_to(x, shape),
    lambda g, ans, x, shape: g, view=True)
row("select", "SelectBackward0",
    # a view, as PyTorch's (the Ellipsis keeps a 0-d result a view rather than a numpy scalar)
    lambda x, dim, index, src_shape: x[(slice(None),) * dim + (index, ...)],
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
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
}.items():
    nondiff(_name, _fn)
nondiff("argmax", lambda x, dim=None, keepdim=False: np.argmax(x, axis=dim, keepdims=keepdim))
nondiff("argmin", lambda x, dim=None, keepdim=False: np.argmin(x, axis=dim, keepdims=keepdim))


# -- piecewise constant and modular ops: PyTorch records them; their gradient is zero or g ---------
for _name, _fn in {"sign": np.sign, "floor": np.floor, "ceil": np.ceil, "round": np.round,
                   "trunc": np.trunc}.items():
    row(_name, _name.capitalize() + "Backward0", _fn, lambda g, ans, x: np.zeros_like(g))
row("remainder", "RemainderBackward0", np.remainder, lambda g, ans, x, y=None: g, inputs=(0,))
row("remainder_tensor", "RemainderBackward1", np.remainder, lambda g, ans, x, y: g,
    lambda g, ans, x, y: -g * np.floor_divide(x, y), saves="xy")
row("fmod", "FmodBackward0", np.fmod, lambda g, ans, x, y=None: g, inputs=(0,))
row("fmod_tensor", "FmodBackward1", np.fmod, lambda g, ans, x, y: g,
    lambda g, ans, x, y: -g * np.trunc(x / y), saves="xy")


def _not_implemented(name):
    def vjp(*args, **kw):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return vjp


# PyTorch records floor_divide with a node that raises when backward reaches it
row("floor_divide", "torch::autograd::NotImplemented", np.floor_divide,
    _not_implemented("floor_divide"), inputs=(0,))
row("floor_divide_tensor", "torch::autograd::NotImplemented", np.floor_divide,
    _not_implemented("floor_divide"), _not_implemented("floor_divide"))
row("rsub_tensor", "RsubBackward0", lambda x, y, alpha=1: y - alpha * x,
    lambda g, ans, x, y, alpha=1: -alpha * g, lambda g, ans, x, y, alpha=1: g)


def _clamp_tensor(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


row("clamp_tensor", "ClampBackward0", _clamp_tensor,
    lambda g, ans, x, lo, hi: np.where((x >= lo) & (x <= hi), g, 0).astype(g.dtype),
    lambda g, ans, x, lo, hi: np.where(x < lo, g, 0).astype(g.dtype),
    lambda g, ans, x, lo, hi: np.where(x > hi, g, 0).astype(g.dtype),
    saves="xyz", roles=("self", "min", "max"))


def _vector_norm(x, ord, dim, keepdim):  # noqa: A002 - PyTorch's parameter name
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))
    return np.sum(np.abs(x) ** ord, axis=dim, keepdims=keepdim) ** (1 / ord)


def _vector_norm_grad(g, ans, x, ord, dim, keepdim):  # noqa: A002
    norm = ans if keepdim or dim is None else np.expand_dims(ans, dim)
    g = g if keepdim or dim is None else np.expand_dims(g, dim)
    if ord == 1:
        return g * np.sign(x)
    scaled = x * np.abs(x) ** (ord - 2) / np.where(norm == 0, 1, norm ** (ord - 1))
    return g * np.where(norm == 0, 0, scaled).astype(x.dtype)


row("vector_norm", "LinalgVectorNormBackward0", _vector_norm, _vector_norm_grad, saves="xr",
    floating=True)
row("amax", "AmaxBackward0", lambda x, dim, keepdim: np.max(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _amax_grad(g, ans, x, dim, keepdim), saves="xr")
row("amin", "AminBackward0", lambda x, dim, keepdim: np.min(x, axis=dim, keepdims=keepdim),
    lambda g, ans, x, dim, keepdim: _amax_grad(g, ans, x, dim, keepdim), saves="xr")


def _amax_grad(g, ans, x, dim, keepdim):
    """amax/amin: the gradient is split evenly among the tied extremes of each slice."""
    if dim is not None and not keepdim:
        for d in sorted(dim):
            ans, g = np.expand_dims(ans, d), np.expand_dims(g, d)
    mask = x == ans
    return (g * mask / mask.sum(axis=dim, keepdims=True)).astype(x.dtype)


def _sum_dtype(x):
    # PyTorch sums integers and bools as int64
    return np.int64 if x.dtype.kind in "biu" else x.dtype


def variadic_rules(name: str, n: int):
    """Rules for ops over a list of tensors (cat, stack): one per input, made on demand."""
    make = {"cat": _cat_grad, "stack": _stack_grad}[name]
    return tuple(make(i) for i in range(n))


# -- rows used by in-place writes and by matmul's PyTorch decomposition ----------------------------
row("reciprocal", "ReciprocalBackward0", np.reciprocal, lambda g, ans, x: -g * (ans * ans),
    saves="r", floating=True)
row("squeeze_dim4", "SqueezeBackward4", lambda x, dim, src_shape: np.squeeze(x, dim),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True)
row("zero", "ZeroBackward0", np.zeros_like, lambda g, ans, x: np.zeros_like(g))
row("fill", "FillBackward2", lambda x, value: np.full_like(x, value),
    lambda g, ans, x, value: np.zeros_like(g))
row("copy", "torch::autograd::CopyBackwards", lambda x, y: np.broadcast_to(y, x.shape).astype(x.dtype),
    lambda g, ans, x, y: np.zeros_like(g), lambda g, ans, x, y: g, promote=False)
row("copy_slices", "torch::autograd::CopySlices", None,
    lambda g, ans, x, y, index: _zero_at(g, index), lambda g, ans, x, y, index: g[index])
row("as_strided", "AsStridedBackward0",
    lambda x, positions, base_shape: x.reshape(-1)[positions],
    lambda g, ans, x, positions, base_shape: _scatter_flat(g, positions, base_shape))
row("index_put", "IndexPutBackward0", None,
    lambda g, ans, x, y, index: _zero_at(g, index), lambda g, ans, x, y, index: g[index])


def _scatter_flat(g, positions, shape):
    out = np.zeros_like(g, shape=shape)
    np.add.at(out, np.unravel_index(positions, shape), g)  # into ``out`` itself (traceable)
    return out


def _zero_at(g, index):
    g = g.copy()
    g[index] = 0
    return g


# -- nn --------------------------------------------------------------------------------------------
# Fused loss rows as PyTorch records them (one node per loss). ``reduction`` is "none", "mean" or
# "sum"; class targets and weights are parameters, not inputs: PyTorch gives them no edge.

def _reduce(loss, reduction):
    if reduction == "mean":
        return np.mean(loss, dtype=loss.dtype)
    if reduction == "sum":
        return np.sum(loss, dtype=loss.dtype)
    return loss


def _unreduce(g, shape, reduction):
    """The incoming gradient spread over the unreduced loss (the mean's 1/N is applied later)."""
    return g if reduction == "none" else np.broadcast_to(g, shape)


def _mean_scale(grad, reduction):
    return grad / np.asarray(grad.size, dtype=grad.dtype) if reduction == "mean" else grad


def _mse_grad(g, ans, x, y, reduction, sign):
    # PyTorch: norm * (input - target) * grad_output, norm = 2 (or 2/N for the mean)
    norm = 2.0 / x.size if reduction == "mean" else 2.0
    d = x - y
    return sign * (d * np.asarray(norm, d.dtype)) * _unreduce(g, d.shape, reduction)


def _nll_picked(x, target, ignore_index):
    """(class axis moved last, safe target indices, mask of the targets that count)."""
    moved = x if x.ndim == 1 else np.moveaxis(x, 1, -1)
    counted = target != ignore_index
    safe = np.where(counted, target, 0)
    return moved, safe, counted


def _nll_weights(x, target, weight, ignore_index):
    moved, safe, counted = _nll_picked(x, target, ignore_index)
    w = np.ones(safe.shape, x.dtype) if weight is None else weight[safe].astype(x.dtype)
    return moved, safe, np.where(counted, w, np.zeros((), x.dtype))


def _nll_loss(x, target, weight, reduction, ignore_index):
    if x.ndim == 1 and target.ndim == 1:  # a 1-D input with a 1-D target of size 1: no batch
        target = target.reshape(())
    moved, safe, w = _nll_weights(x, target, weight, ignore_index)
    picked = np.take_along_axis(moved, safe[..., None], -1)[..., 0]
    losses = -picked * w
    if reduction == "none":
        return losses
    total = np.sum(losses, dtype=x.dtype)
    return total / np.sum(w, dtype=x.dtype) if reduction == "mean" else total


def _nll_grad(g, ans, x, target, weight, reduction, ignore_index):
    if x.ndim == 1 and target.ndim == 1:  # PyTorch's forward takes it, its backward does not
        raise RuntimeError(f"size mismatch (got input: [{x.shape[0]}], target: [1])")
    moved, safe, w = _nll_weights(x, target, weight, ignore_index)
    if reduction == "mean":
        g = g / np.sum(w, dtype=x.dtype)
    out = np.zeros_like(moved)  # zeros_like, so higher-order backward can trace it
    np.put_along_axis(out, safe[..., None], (-w * g)[..., None].astype(x.dtype), -1)
    return out if x.ndim == 1 else np.moveaxis(out, -1, 1)


def _weighted(loss, weight):
    return loss if weight is None else loss * weight


def _bce(x, y, weight, reduction):
    # log terms are clamped at -100 as PyTorch does, so a probability of exactly 0 or 1 stays finite
    low = np.asarray(-100, x.dtype)
    loss = (y - 1) * np.maximum(np.log1p(-x), low) - y * np.maximum(np.log(x), low)
    return _reduce(_weighted(loss, weight), reduction)


def _bce_grad_x(g, ans, x, y, weight, reduction):
    eps = np.asarray(1e-12, x.dtype)
    grad = (x - y) / np.maximum((1 - x) * x, eps) * _unreduce(g, x.shape, reduction)
    return _mean_scale(_weighted(grad, weight), reduction)


def _bce_grad_y(g, ans, x, y, weight, reduction):
    grad = -np.log(x / (1 - x)) * _unreduce(g, x.shape, reduction)
    return _mean_scale(_weighted(grad, weight), reduction)


def _log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _bce_logits(x, y, weight, pos_weight, reduction, out_dtype=None):
    # out_dtype: the target's dtype when input and target differ (PyTorch's loss is computed in
    # a buffer made from the target)
    log_sig = _log_sigmoid(x)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * y + 1)
    loss = _weighted((1 - y) * x - log_sig, weight)
    if out_dtype is not None:
        loss = loss.astype(out_dtype)
    return _reduce(loss, reduction)


def _bce_logits_grad_x(g, ans, x, y, weight, pos_weight, reduction, out_dtype=None):
    if pos_weight is None:
        grad = _sigmoid(x) - y
    else:
        t = pos_weight * y
        grad = (t + 1 - y) * _sigmoid(x) - t
    grad = grad * _unreduce(g, x.shape, reduction)
    return _mean_scale(_weighted(grad, weight), reduction)


def _bce_logits_grad_y(g, ans, x, y, weight, pos_weight, reduction, out_dtype=None):
    grad = -x if pos_weight is None else _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
    grad = grad * _unreduce(g, x.shape, reduction)
    return _mean_scale(_weighted(grad, weight), reduction)


row("mse_loss", "MseLossBackward0",
    lambda x, y, reduction: _reduce((x - y) * (x - y), reduction),
    lambda g, ans, x, y, reduction: _mse_grad(g, ans, x, y, reduction, 1),
    lambda g, ans, x, y, reduction: _mse_grad(g, ans, x, y, reduction, -1),
    saves="xy", roles=("self", "target"))
row("nll_loss", "NllLossBackward0", _nll_loss, _nll_grad, saves="x")
row("nll_loss2d", "NllLoss2DBackward0", _nll_loss, _nll_grad, saves="x")
row("binary_cross_entropy", "BinaryCrossEntropyBackward0", _bce, _bce_grad_x, _bce_grad_y,
    saves="xy", roles=("self", "target"))
row("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", _bce_logits,
    _bce_logits_grad_x, _bce_logits_grad_y, saves="xy", roles=("self", "target"))
# ``tensor op number`` as PyTorch's C++ records it inside cross_entropy (the Scalar overloads)
row("div_scalar", "DivBackward1", lambda x, other: x / np.asarray(other, x.dtype),
    lambda g, ans, x, other: g / np.asarray(other, g.dtype))
row("mul_scalar", "MulBackward1", lambda x, other: x * np.asarray(other, x.dtype),
    lambda g, ans, x, other: g * np.asarray(other, g.dtype))
row("add_scalar", "AddBackward1", lambda x, other: x + np.asarray(other, x.dtype),
    lambda g, ans, x, other: g)
row("masked_fill", "MaskedFillBackward0",
    lambda x, mask, value: np.where(mask, np.asarray(value, x.dtype), x),
    lambda g, ans, x, mask, value: np.where(mask, np.zeros((), g.dtype), g))


# -- added ops: log1p, expm1, prod, var/std, cumsum and the smooth activations ------------------
# Rules stay with numpy calls on their arguments (so ``create_graph=True`` can re-run them on
# Tensors); cumsum has no traceable spelling, so its rule's plain-array path uses numpy's cumsum
# and the traced path an equivalent made of traceable calls; erf is computed with traceable calls.

def _prod_others(x, dim):
    """For each position along ``dim``, the product of the other entries (PyTorch's
    ``prod_safe_zeros_backward``: exclusive products from the left times from the right)."""
    n = x.shape[dim]
    if n == 0:
        return x
    lead = (slice(None),) * dim
    parts = [x[lead + (k,)] for k in range(n)]
    left = [np.full_like(parts[0], 1)]
    for k in range(1, n):
        left.append(left[-1] * parts[k - 1])
    right = [np.full_like(parts[0], 1)]
    for k in range(n - 2, -1, -1):
        right.append(right[-1] * parts[k + 1])
    right.reverse()
    return np.stack([a * b for a, b in zip(left, right)], axis=dim)


def _prod_grad(g, ans, x, dim=None, keepdim=False, dtype=None):
    if x.ndim == 0:
        return g
    if dim is None:
        if not (x == 0).any():
            return g * (ans / x)
        return g * _prod_others(x.reshape(-1), 0).reshape(x.shape)
    if not keepdim:
        g, ans = np.expand_dims(g, dim), np.expand_dims(ans, dim)
    if not (x == 0).any():
        return g * (ans / x)
    return g * _prod_others(x, dim)


def _var(x, dim, correction, keepdim):
    dim = dim or None  # an empty dim list reduces every dimension
    dof = max(0, _count(x.shape, dim) - correction)
    d = x - np.mean(x, axis=dim, keepdims=True)
    return np.sum(d * d, axis=dim, keepdims=keepdim) / np.asarray(dof, x.dtype)


def _var_grad(g, ans, x, dim, correction, keepdim):
    """PyTorch's ``var_backward``: ``2 / (N - correction) * grad * (x - mean)``; a full reduction
    with no degrees of freedom left gives nan where x is the mean, inf elsewhere. An empty dim
    list counts N as 1 there (PyTorch's ``_safe_size``) while the forward reduced everything."""
    if x.ndim == 0 or dim is None:
        dof = x.size - correction
        if dof <= 0:
            return g * np.where(x == np.mean(x), np.full_like(x, np.nan), np.full_like(x, np.inf))
        return (2.0 / dof) * g * (x - np.mean(x))
    if not keepdim:
        g = np.expand_dims(g, dim)
    scale = float(np.float64(2.0) / (_count(x.shape, dim) - correction))  # 2 / 0: inf
    return scale * g * (x - np.mean(x, axis=dim or None, keepdims=True))


def _std_grad(g, ans, x, dim, correction, keepdim):
    gv = g / (ans * 2)
    gv = np.where(ans == 0, np.zeros_like(gv), gv)
    return _var_grad(gv, None, x, dim, correction, keepdim)


def _cumsum(x, dim, dtype=None):
    dt = _sum_dtype(x) if dtype is None else dtype
    if x.ndim == 0:
        return x.astype(dt)
    return np.cumsum(x, axis=dim, dtype=dt)


def _cumsum_grad(g, ans, x, dim, dtype=None):
    """The gradient summed from the end (PyTorch's ``grad.flip(dim).cumsum(dim).flip(dim)``)."""
    if g.ndim == 0 or g.shape[dim] == 1:
        return g
    if isinstance(g, np.ndarray):
        return np.flip(np.cumsum(np.flip(g, dim), axis=dim), dim)
    # traced (create_graph): a product with the constant upper-triangular ones
    n = g.shape[dim]
    upper = np.tril(np.ones((n, n), dtype=g.dtype))
    return np.moveaxis(np.moveaxis(g, dim, -1) @ upper, -1, dim)


_SQRT1_2 = 0.7071067811865476
_GELU_PDF = 0.3989422804014327  # 1 / sqrt(2 pi)
_GELU_BETA = 0.7978845608028654  # sqrt(2 / pi)
_GELU_KAPPA = 0.044715
# erf as Cephes computes it (rational approximations; within 5e-16 of the C library's erf):
# made of traceable numpy calls only, so gelu's rule differentiates again under create_graph
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
          7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U = (3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)
_ERFC_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
           6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S = (2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
           1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)


def _polevl(x, coefficients, monic=False):
    y = x + coefficients[0] if monic else np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        y = y * x + c
    return y


def _erf(x):
    """erf elementwise; plain arrays are computed in double precision, returned in x's dtype."""
    if isinstance(x, np.ndarray):
        return _erf_array(x)
    a = np.minimum(np.abs(x), 30.0)  # erfc(30) is 0 already; keeps inf out of the formulas
    z = np.minimum(x * x, 1.0)
    small = x * _polevl(z, _ERF_T) / _polevl(z, _ERF_U, monic=True)
    e = np.exp(-(a * a))
    erfc = np.where(a < 8, e * _polevl(a, _ERFC_P) / _polevl(a, _ERFC_Q, monic=True),
                    e * _polevl(a, _ERFC_R) / _polevl(a, _ERFC_S, monic=True))
    return np.where(np.abs(x) <= 1, small, np.sign(x) * (1 - erfc))


def _erf_array(x):
    """``_erf``'s formulas, each evaluated only where it applies (a plain array: no tracing)."""
    d = x.astype(np.float64)
    out = np.empty_like(d)
    a = np.abs(d)
    inner = a <= 1
    v = d[inner]
    z = v * v
    out[inner] = v * _polevl(z, _ERF_T) / _polevl(z, _ERF_U, monic=True)
    outer = ~inner
    if outer.any():
        v = d[outer]
        b = np.minimum(a[outer], 30.0)
        e = np.exp(-(b * b))
        mid = b < 8
        erfc = np.empty_like(b)
        erfc[mid] = e[mid] * _polevl(b[mid], _ERFC_P) / _polevl(b[mid], _ERFC_Q, monic=True)
        far = ~mid
        erfc[far] = e[far] * _polevl(b[far], _ERFC_R) / _polevl(b[far], _ERFC_S, monic=True)
        out[outer] = np.sign(v) * (1 - erfc)
    return out.astype(x.dtype, copy=False)


def _gelu(x, approximate):
    if approximate == "tanh":
        inner = _GELU_BETA * (x + _GELU_KAPPA * (x * x * x))
        return 0.5 * x * (1 + np.tanh(inner))
    return x * 0.5 * (1 + _erf(x * _SQRT1_2))


def _gelu_grad(g, ans, x, approximate):
    if approximate == "tanh":
        x_sq = x * x
        tanh_inner = np.tanh(_GELU_BETA * (x + _GELU_KAPPA * (x_sq * x)))
        left = 0.5 * x
        right = 1 + tanh_inner
        return g * (0.5 * right + left * (1 - tanh_inner * tanh_inner)
                    * (_GELU_BETA * (1 + 3 * _GELU_KAPPA * x_sq)))
    cdf = 0.5 * (1 + _erf(x * _SQRT1_2))
    pdf = _GELU_PDF * np.exp(x * x * -0.5)
    return g * (cdf + x * pdf)


def _softplus(x, beta, threshold):
    xb = x * beta
    return np.where(xb > threshold, x, np.log1p(np.exp(xb)) / beta).astype(x.dtype)


def _softplus_grad(g, ans, x, beta, threshold):
    xb = x * beta
    z = np.exp(np.minimum(xb, threshold))  # the capped branch is not taken (no inf * 0 there)
    return np.where(xb > threshold, g, g * z / (z + 1))


def _elu(x, alpha):
    return np.where(x <= 0, np.expm1(np.minimum(x, 0)) * alpha, x).astype(x.dtype)


row("log1p", "Log1PBackward0", np.log1p, lambda g, ans, x: g / (x + 1), saves="x",
    floating=True)
row("expm1", "Expm1Backward0", np.expm1, lambda g, ans, x: g * (ans + 1), saves="r",
    floating=True)
row("prod", "ProdBackward0",
    lambda x, dtype=None: np.prod(x, dtype=_sum_dtype(x) if dtype is None else dtype),
    _prod_grad, saves="xr")
row("prod_dim", "ProdBackward1",
    lambda x, dim, keepdim, dtype=None: np.prod(
        x, axis=dim, keepdims=keepdim, dtype=_sum_dtype(x) if dtype is None else dtype),
    _prod_grad, saves="xr")
row("var", "VarBackward0", _var, _var_grad, saves="x")
row("std", "StdBackward0", lambda x, dim, correction, keepdim: np.sqrt(
        _var(x, dim, correction, keepdim)), _std_grad, saves="xr")
row("cumsum", "CumsumBackward0", _cumsum, _cumsum_grad)
row("leaky_relu", "LeakyReluBackward0",
    lambda x, negative_slope: np.where(x > 0, x, x * negative_slope).astype(x.dtype),
    lambda g, ans, x, negative_slope: np.where(x > 0, g, g * negative_slope), saves="x")
# in place (``inplace=True``): PyTorch saves the result instead of the input
row("leaky_relu_", "LeakyReluBackward1",
    lambda x, negative_slope: np.where(x > 0, x, x * negative_slope).astype(x.dtype),
    lambda g, ans, x, negative_slope: np.where(ans > 0, g, g * negative_slope), saves="r")
row("gelu", "GeluBackward0", _gelu, _gelu_grad, saves="x")
row("softplus", "SoftplusBackward0", _softplus, _softplus_grad, saves="x")
row("elu", "EluBackward0", _elu,
    lambda g, ans, x, alpha: np.where(x <= 0, g * alpha * np.exp(np.minimum(x, 0)), g),
    saves="x")
row("elu_", "EluBackward1", _elu,
    lambda g, ans, x, alpha: np.where(ans <= 0, g * (ans + alpha), g), saves="r")
row("silu", "SiluBackward0", lambda x: x / (1 + np.exp(-x)),
    lambda g, ans, x: (lambda s: g * s * (1 + x * (1 - s)))(_sigmoid(x)), saves="x")
