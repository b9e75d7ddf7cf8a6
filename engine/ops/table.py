"""The one table of ops: one row per op holds everything about it, and everything else is made
from the rows or checked against them (``tests/engine/ops/test_op_rows.py``; the checklist for a
new op is in docs/internals.md, "Adding an op").

A row: ``row(name, node_name, forward, *vjps, saves=..., api=..., note=..., group=...)``.

- ``node_name``: PyTorch's node (``Log1PBackward0``); ``forward(*arrays, **params)``: numpy.
- ``vjps``: one rule per input, ``vjp(g, ans, *inputs, **params) -> gradient for that input``.
  ``inputs`` are the input arrays the row saves (``saves`` names them: x, y, z for inputs 0-2, r
  for the result; others arrive as None), ``ans`` the result when saved. Rules never undo
  broadcasting: the backward loop sums each gradient down to its input's shape
  (``autograd.node._reduce_to``). Rows with ``vjps`` None are not differentiable on purpose
  (comparisons, argmax, ...): their outputs never require grad.
- ``roles``: PyTorch's names of the inputs (``grad_fn._saved_self``, ``_saved_other``...);
  parameters read as ``grad_fn._saved_<param>`` (``_saved_dim``): ``param_defaults`` for those
  PyTorch reports when not passed (``_saved_alpha`` is 1), ``int_lists`` for its int[] ones.
- ``api``: the public spellings that record the row, space-separated: ``torch.x`` (a function of
  ``engine``), ``Tensor.x`` (a method, ``Tensor.x_`` in place, ``Tensor.__add__`` an operator),
  ``F.x`` (``engine.nn.functional``). ``make``: how ``engine/ops/api.py`` generates the row's
  functions and methods: ``"unary"`` (``f(input)``), ``"binary"`` (``f(input, other)``, either may
  be a number or a list); without ``make`` the functions are written by hand there (argument
  parsing, overloads), and the test checks each spelling exists.
- ``note``: what the node computes and its local derivative, in words, for the inspector
  (``app/vjp_notes.py`` reads ``notes()``); ``group``: the palette group of the op in the builder
  (``engine/builder/catalog.py``), or ``{palette id: group}`` when the row serves several entries.
"""

from __future__ import annotations

import math

import numpy as np

from . import fused
from .reduce_order import torch_mean, torch_sum


class Op:
    __slots__ = ("name", "node_name", "forward", "vjps", "saves", "roles", "view", "promote",
                 "floating", "inputs", "save_if", "save_users", "param_defaults", "int_lists",
                 "api", "make", "note", "group")

    def __init__(self, name, node_name, forward, vjps, saves="", view=False, promote=True,
                 roles=("self", "other", "third"), floating=False, inputs=None, save_if=None,
                 param_defaults=None, int_lists=(), api="", make=None, note="", group=None):
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
        # ``grad_fn._saved_<param>``: what PyTorch reports for a parameter not passed
        # (``_saved_alpha`` is 1), and the parameters it keeps as int[] (an int dim reads (dim,))
        self.param_defaults = param_defaults or {}
        self.int_lists = int_lists
        self.api = tuple(api.split())
        self.make = make
        self.note = note
        self.group = group

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {self.node_name!r})"


OPS: dict[str, Op] = {}


def row(name, node_name, forward, *vjps, saves="", table=None, **kw) -> None:
    (OPS if table is None else table)[name] = Op(
        name, node_name, forward, vjps if vjps else None, saves, **kw)


# PyTorch's fused backward kernels (``tanh_backward``...), which only a create_graph backward
# records (TanhBackwardBackward0). Rows as any other, kept apart from OPS only because
# ``tests/engine/ops/test_gradcheck.py`` checks every OPS row against its own input recipes
# (``tests/engine/test_class_names_and_second_order.py`` checks these against PyTorch's third
# derivatives).
BACKWARD_OPS: dict[str, Op] = {}


# A rule calls them as ``_tanh_grad(g, y)``: on arrays the formula itself; on create_graph's
# traced values (which have ``fused``) the op ``BACKWARD_OPS[name]``, so the graph has PyTorch's
# node.

def _tanh_grad(g, y):
    if g.__class__ is np.ndarray:
        if (y.__class__ is np.ndarray and y.ndim and g.dtype == y.dtype
                and g.shape == y.shape):  # (0-d math gives numpy scalars: no buffer to reuse)
            # ``g * (1 - y * y)``, the same operations written into one buffer
            t = y * y
            np.subtract(1, t, out=t)
            return np.multiply(g, t, out=t)
        return g * (1 - y * y)
    if not hasattr(g, "fused"):
        return g * (1 - y * y)
    return g.fused(BACKWARD_OPS["tanh_backward"], y)


def _sigmoid_grad(g, y):
    # PyTorch's kernel groups it (g · (1 − y)) · y
    if g.__class__ is np.ndarray or not hasattr(g, "fused"):
        return g * (1 - y) * y
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
    # math.prod of the Python ints of a shape: np.prod's value, without its Python layers
    if dim is None:
        return math.prod(shape)
    dims = dim if isinstance(dim, tuple) else (dim,)
    return math.prod([shape[d] for d in dims])


def _mean_all(x, dtype):
    """torch's CPU mean: its sum (in torch's order, ``reduce_order``), then ``/ count`` in the
    result's dtype."""
    if x.__class__ is not np.ndarray or not x.size:
        return np.mean(x, dtype=dtype)  # numpy's empty-slice warning and nan
    return torch_mean(x, None, False, dtype)


def _np_mean(x, dim, keepdim, dtype):
    return np.mean(x, axis=dim, keepdims=keepdim, dtype=dtype)  # empty: numpy's nan


def _spread_mean(g, shape, count):
    """``np.broadcast_to(g, shape) / count``: a new dense array; on arrays written straight into
    it (one call), on create_graph's traced values as the expression itself."""
    if g.__class__ is np.ndarray:
        return np.divide(g, count, out=np.empty(shape, g.dtype))
    return np.broadcast_to(g, shape) / count


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


def _max_over(x, dim, keepdim):
    return np.max(x, axis=dim, keepdims=keepdim)


def _min_over(x, dim, keepdim):
    return np.min(x, axis=dim, keepdims=keepdim)


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


def _pow(x, exponent):
    """ATen's kernel for a number exponent: it writes 3, -2 and -0.5 as x·x·x, 1/(x·x) and
    1/sqrt(x), and rounds the others from a pow a little more accurate than float32's (numpy's
    float32 power is off by one unit for about a fifth of the values; a float64 pow rounded to
    float32 agrees with PyTorch's on all but about 2%, which keeps long training loops on
    PyTorch's path)."""
    if exponent == 2 or x.dtype.kind != "f":  # (numpy squares exactly: the common case first)
        return x ** exponent
    if exponent == 3:
        return x * x * x
    if exponent == -2:
        return 1 / (x * x)
    if exponent == -0.5:
        return 1 / np.sqrt(x)
    if x.dtype == np.float32 and exponent not in (1, 0, -1, 0.5):
        return (x.astype(np.float64) ** exponent).astype(np.float32)
    return x ** exponent


def _pow_base_grad(g, ans, x, exponent):
    if exponent == 0:
        return np.zeros_like(x)
    # PyTorch's grouping (pow_backward), its power rounded as its forward kernel rounds it
    power = _pow(x, exponent - 1) if x.__class__ is np.ndarray else x ** (exponent - 1)
    return g * (exponent * power)


def _sigmoid(x):
    # exp of a non-positive number only, so large |x| neither overflows nor warns
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _clamp(x, min=None, max=None):
    if min is not None:
        x = np.maximum(x, np.asarray(min, dtype=x.dtype))
    if max is not None:
        x = np.minimum(x, np.asarray(max, dtype=x.dtype))
    return x


def _clamp_grad(g, ans, x, min=None, max=None):
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
def _plus_scaled(x, y, alpha):
    """``x + alpha * y`` as PyTorch's add kernel computes it: ``alpha`` in the result's dtype,
    then one fused multiply-add for floats (``fused.fma``; numpy's two roundings left one float32
    element in five a unit off); ``sub`` is ``add`` with ``-alpha``."""
    dtype = np.result_type(x, y)
    if dtype.kind != "f" or dtype.itemsize < 4:  # integers are exact; halves: as before
        return x + alpha * y
    return fused.fma(np.asarray(y, dtype), dtype.type(alpha), np.asarray(x, dtype))


row("add", "AddBackward0",
    lambda x, y, alpha=1: x + y if alpha == 1 else _plus_scaled(x, y, alpha),
    lambda g, ans, x, y, alpha=1: g,
    lambda g, ans, x, y, alpha=1: g if alpha == 1 else g * alpha,
    param_defaults={"alpha": 1},
    api="torch.add Tensor.add Tensor.add_ Tensor.__add__ Tensor.__radd__ Tensor.__iadd__",
    group="Arithmetic",
    note="passes the incoming grad unchanged to both inputs (d(a+b)/da = d(a+b)/db = 1; times "
         "alpha for the second); a constant operand gets nothing")
row("sub", "SubBackward0",
    lambda x, y, alpha=1: x - y if alpha == 1 else _plus_scaled(x, y, -alpha),
    lambda g, ans, x, y, alpha=1: g,
    lambda g, ans, x, y, alpha=1: -g if alpha == 1 else -g * alpha,
    param_defaults={"alpha": 1},
    api="torch.diff Tensor.diff torch.sub torch.subtract Tensor.sub Tensor.subtract Tensor.sub_ "
        "Tensor.__sub__ "
        "Tensor.__isub__",
    group="Arithmetic",
    note="passes the grad to the first input and its negative to the second")
row("rsub", "RsubBackward1", lambda x, y: y - x, lambda g, ans, x, y=None: -g, inputs=(0,),
    param_defaults={"alpha": 1},
    api="torch.rsub Tensor.rsub Tensor.__rsub__ torch.sub",
    note="sends the negated grad to its tensor input")
row("mul", "MulBackward0", np.multiply,
    lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x, saves="xy",
    save_if={0: (1,), 1: (0,)},
    api="torch.dropout torch.mul torch.multiply Tensor.mul Tensor.multiply Tensor.mul_ "
        "Tensor.__mul__ Tensor.__rmul__ Tensor.__imul__ torch.outer Tensor.outer torch.ger "
        "Tensor.ger",
    group="Arithmetic",
    note="multiplies the grad by the other factor: grad_a = grad · b, grad_b = grad · a "
         "(for t * t both edges go to t and are summed)")
row("div", "DivBackward0", np.true_divide,
    lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ((x / y) / y), saves="xy", floating=True,
    save_if={0: (1,), 1: (0, 1)},
    api="torch.div torch.divide torch.true_divide Tensor.div Tensor.divide Tensor.true_divide "
        "Tensor.div_ Tensor.__truediv__ Tensor.__rtruediv__ Tensor.__itruediv__",
    group="Arithmetic",
    note="grad_a = grad / b, grad_b = −grad · a / b²")
row("neg", "NegBackward0", np.negative, lambda g, ans, x: -g,
    api="Tensor.negative Tensor.negative_ torch.neg torch.negative Tensor.neg Tensor.neg_ "
        "Tensor.__neg__",
    make="unary", group="Arithmetic",
    note="negates the grad")
row("pow", "PowBackward0", _pow, _pow_base_grad, saves="x",
    api="torch.float_power Tensor.float_power torch.pow torch.square Tensor.pow Tensor.square "
        "Tensor.square_ "
        "Tensor.pow_ Tensor.__pow__",
    group={"pow": "Arithmetic", "square": "Pointwise"},
    note="grad · n · xⁿ⁻¹ (the exponent is a number)")
row("pow_tensor", "PowBackward1", np.power,
    lambda g, ans, x, y: g * y * x ** (y - 1),
    lambda g, ans, x, y: g * ans * np.log(np.where(x > 0, x, np.where(x == 0, 1, np.nan))),
    saves="xyr",
    api="torch.pow Tensor.pow Tensor.__pow__",
    note="grad · y · xʸ⁻¹ to the base, grad · xʸ · ln x to the exponent")
row("rpow", "PowBackward2", lambda x, base: np.power(np.asarray(base, x.dtype), x),
    lambda g, ans, x, base: g * ans * np.log(base), saves="r",
    api="torch.pow Tensor.__rpow__",
    note="grad · bˣ · ln b to the exponent x (the base b is a number), from the saved result")
row("abs", "AbsBackward0", np.abs, lambda g, ans, x: g * np.sign(x), saves="x",
    api="torch.abs torch.absolute Tensor.abs Tensor.abs_ Tensor.__abs__",
    make="unary", group={"abs": "Pointwise", "l1_loss": "Losses"},
    note="grad · sign(x)")
row("exp", "ExpBackward0", np.exp, lambda g, ans, x: g * ans, saves="r", floating=True,
    api="torch.exp Tensor.exp Tensor.exp_", make="unary", group="Pointwise",
    note="grad · exp(x) (the saved result)")
row("log", "LogBackward0", np.log, lambda g, ans, x: g / x, saves="x", floating=True,
    api="torch.log Tensor.log Tensor.log_", make="unary", group="Pointwise",
    note="grad / x (x saved from forward)")
row("sqrt", "SqrtBackward0", np.sqrt, lambda g, ans, x: g / (2 * ans), saves="r", floating=True,
    api="torch.sqrt Tensor.sqrt Tensor.sqrt_", make="unary", group="Pointwise",
    note="grad / (2 · sqrt(x))")
row("sin", "SinBackward0", np.sin, lambda g, ans, x: g * np.cos(x), saves="x", floating=True,
    api="torch.sin Tensor.sin Tensor.sin_", make="unary", group="Pointwise",
    note="grad · cos(x)")
row("cos", "CosBackward0", np.cos, lambda g, ans, x: -g * np.sin(x), saves="x", floating=True,
    api="torch.cos Tensor.cos Tensor.cos_", make="unary", group="Pointwise",
    note="−grad · sin(x)")
row("tanh", "TanhBackward0", np.tanh, lambda g, ans, x: _tanh_grad(g, ans), saves="r",
    floating=True,
    api="torch.tanh Tensor.tanh Tensor.tanh_ F.tanh", make="unary", group="Activations",
    note="grad · (1 − tanh(x)²), from the saved result")
row("sigmoid", "SigmoidBackward0", _sigmoid, lambda g, ans, x: _sigmoid_grad(g, ans), saves="r",
    floating=True,
    api="torch.sigmoid Tensor.sigmoid Tensor.sigmoid_ F.sigmoid", make="unary", group="Activations",
    note="grad · σ(x) · (1 − σ(x)), from the saved result")
# their backward kernels (derivatives.yaml's tanh_backward / sigmoid_backward)
row("tanh_backward", "TanhBackwardBackward0", lambda g, y: g * (1 - y * y),
    lambda gg, ans, g, y: _tanh_grad(gg, y),
    lambda gg, ans, g, y: gg * (-2 * y * g),
    saves="xy", roles=("grad_output", "output"), table=BACKWARD_OPS,
    api="Tensor.backward",
    note="tanh's backward, differentiated again (create_graph): it computed grad_output · (1 − "
         "y²) from the saved output y; gg · (1 − y²) goes to grad_output, −2 · gg · grad_output · "
         "y to y")
row("sigmoid_backward", "SigmoidBackwardBackward0", lambda g, y: g * (1 - y) * y,
    lambda gg, ans, g, y: _sigmoid_grad(gg, y),
    lambda gg, ans, g, y: gg * g * (-2 * y + 1),
    saves="xy", roles=("grad_output", "output"), table=BACKWARD_OPS,
    api="Tensor.backward",
    note="sigmoid's backward, differentiated again (create_graph): it computed grad_output · y · "
         "(1 − y) from the saved output y; gg · y · (1 − y) goes to grad_output, gg · grad_output "
         "· (1 − 2y) to y")
row("relu", "ReluBackward0", lambda x: np.maximum(x, 0),
    lambda g, ans, x: np.where(ans > 0, g, 0).astype(g.dtype), saves="r",
    api="torch.relu Tensor.relu Tensor.relu_ F.relu", make="unary", group="Activations",
    note="passes the grad where x > 0, zero elsewhere")
row("clamp", "ClampBackward1", _clamp, _clamp_grad, saves="x",
    api="torch.clamp torch.clip Tensor.clamp Tensor.clip Tensor.clamp_ Tensor.clip_",
    group="Pointwise",
    note="passes the grad where x was inside the bounds, zero where clamped")
row("maximum", "MaximumBackward0", np.maximum,
    lambda g, ans, x, y: np.where(x > y, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    lambda g, ans, x, y: np.where(y > x, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    saves="xy",
    api="torch.maximum Tensor.maximum torch.max Tensor.max",
    note="sends the grad to whichever input was larger (split on ties)")
row("minimum", "MinimumBackward0", np.minimum,
    lambda g, ans, x, y: np.where(x < y, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    lambda g, ans, x, y: np.where(y < x, g, np.where(x == y, g / 2, 0)).astype(g.dtype),
    saves="xy",
    api="torch.minimum Tensor.minimum torch.min Tensor.min",
    note="sends the grad to whichever input was smaller (split on ties)")
row("where", "WhereBackward0", lambda cond, x, y: np.where(cond, x, y),
    lambda g, ans, cond, x, y: np.where(cond, g, 0).astype(g.dtype),
    lambda g, ans, cond, x, y: np.where(cond, 0, g).astype(g.dtype),
    saves="x", roles=("condition", "self", "other"), inputs=(1, 2),
    api="torch.where Tensor.where",
    note="passes the grad to self where the condition holds and to other where it does not (zero "
         "to the other side); the condition gets no grad")

# -- reductions ------------------------------------------------------------------------------------
row("sum", "SumBackward0",
    lambda x, shape, dtype=None: torch_sum(x, dtype=_sum_dtype(x) if dtype is None else dtype),
    lambda g, ans, x, shape, dtype=None: np.broadcast_to(g, shape),
    api="torch.sum Tensor.sum", group="Reductions",
    note="expands the scalar grad to the input's shape: every element gets it")
row("sum_dim", "SumBackward1",
    lambda x, dim, keepdim, shape, dtype=None: torch_sum(
        x, dim, keepdim, dtype=_sum_dtype(x) if dtype is None else dtype),
    lambda g, ans, x, dim, keepdim, shape, dtype=None: _expand_reduced(g, shape, dim, keepdim),
    int_lists=("dim",),
    api="torch.sum Tensor.sum",
    note="expands the grad back over the summed dimensions")
row("mean", "MeanBackward0",
    lambda x, shape, dtype=None: _mean_all(x, x.dtype if dtype is None else dtype),
    # PyTorch's ``grad.expand(sizes) / numel``: a new dense gradient (dividing first would hand
    # on a broadcast view, which AccumulateGrad copies rather than keeps: a different version)
    lambda g, ans, x, shape, dtype=None: _spread_mean(g, shape, _count(shape, None)),
    api="torch.mean Tensor.mean", group="Reductions",
    note="expands the grad to the input's shape and divides by the number of elements")
row("mean_dim", "MeanBackward1",
    lambda x, dim, keepdim, shape, dtype=None: (torch_mean if x.size else _np_mean)(
        x, dim, keepdim, x.dtype if dtype is None else dtype),
    lambda g, ans, x, dim, keepdim, shape, dtype=None: _expand_reduced(
        g, shape, dim, keepdim) / _count(shape, dim),
    int_lists=("dim",),
    api="torch.mean Tensor.mean",
    note="expands the grad over the averaged dimensions, divided by their size")
for _kind, _over in (("max", _max_over), ("min", _min_over)):
    row(_kind, f"{_kind.title()}Backward1", lambda x, over=_over: over(x, None, False),
        lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr",
        api=f"torch.{_kind} Tensor.{_kind}", group="Reductions",
        note=f"the {_kind} of all elements: the grad is split evenly among the elements equal to "
             "it, zero elsewhere")
    row(f"{_kind}_dim", f"{_kind.title()}Backward0", _over,
        lambda g, ans, x, dim, keepdim: _minmax_grad(g, ans, x, dim, keepdim), saves="xr",
        api=f"torch.{_kind} Tensor.{_kind}",
        note=f"along dim: the grad goes to the element whose index the {_kind} returned, zero "
             "elsewhere")
    row(f"a{_kind}", f"A{_kind}Backward0", _over,
        lambda g, ans, x, dim, keepdim: _amax_grad(g, ans, x, dim, keepdim), saves="xr",
        api=f"torch.a{_kind} Tensor.a{_kind}",
        note=f"the grad is split evenly among the elements equal to their slice's {_kind}, zero "
             "elsewhere")
del _kind, _over
row("softmax", "SoftmaxBackward0", lambda x, dim: _softmax(x, dim),
    lambda g, ans, x, dim: ans * (g - (g * ans).sum(axis=dim, keepdims=True)), saves="r",
    floating=True,
    api="torch.softmax Tensor.softmax F.softmax", group="Activations",
    note="y · (grad − Σ grad · y), with y the saved softmax")
row("log_softmax", "LogSoftmaxBackward0", lambda x, dim: _log_softmax(x, dim),
    lambda g, ans, x, dim: g - np.exp(ans) * g.sum(axis=dim, keepdims=True), saves="r",
    floating=True,
    api="torch.log_softmax Tensor.log_softmax F.log_softmax", group="Activations",
    note="grad − softmax(x) · Σ grad")

# -- matrix ----------------------------------------------------------------------------------------
_dot = np.dot
_SMALL_PRODUCT = 1 << 16  # multiply-adds


def _mat(a, b):
    """``a @ b`` of two matrices. Two small float arrays laid out for BLAS go through ``np.dot``:
    the same gemm call as matmul's (bit for bit), without matmul's ufunc layers, which cost more
    than the product of the small matrices a debugger shows (large ones gain nothing, and
    transposed ones run slower through dot). Anything else (other dtypes, strided or unaligned
    arrays, where matmul's own loops round otherwise, create_graph's Tensors) is ``@``."""
    if (a.__class__ is np.ndarray and b.__class__ is np.ndarray and a.ndim == 2 and b.ndim == 2
            and a.size * b.shape[1] <= _SMALL_PRODUCT):
        dt = a.dtype
        if b.dtype == dt and dt.char in "fd" and dt.isnative:
            fa, fb = a.flags, b.flags
            if (fa.aligned and fb.aligned and (fa.c_contiguous or fa.f_contiguous)
                    and (fb.c_contiguous or fb.f_contiguous)):
                return _dot(a, b)
    return a @ b


def _mm_grad_a(g, ans, a, b, cols=None):
    # PyTorch's mm_mat1_backward: a column-major input gets its gradient column-major too
    return _mat(b, g.T).T if cols is not None and cols[0] else _mat(g, b.T)


def _mm_grad_b(g, ans, a, b, cols=None):
    return _mat(g.T, a).T if cols is not None and cols[1] else _mat(a.T, g)


# ``cols`` (given only when an input is column-major, e.g. a transposed weight): which inputs are
row("mm", "MmBackward0", lambda a, b, cols=None: _mat(a, b), _mm_grad_a, _mm_grad_b,
    saves="xy",
    roles=("self", "mat2"), save_if={0: (1,), 1: (0,)},
    api="torch.tensordot torch.mm Tensor.mm torch.matmul Tensor.matmul Tensor.__matmul__ "
        "Tensor.__rmatmul__",
    group={"mm": "Matrix", "matmul": "Matrix"},
    note="grad_a = grad @ bᵀ, grad_b = aᵀ @ grad")
row("mv", "MvBackward0", np.matmul,
    lambda g, ans, a, b: np.multiply.outer(g, b), lambda g, ans, a, b: a.T @ g, saves="xy",
    roles=("self", "vec"), save_if={0: (1,), 1: (0,)},
    api="torch.mv Tensor.mv torch.matmul Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__",
    group="Matrix",
    note="grad_A = outer(grad, v), grad_v = Aᵀ @ grad")
row("dot", "DotBackward0", np.dot,
    lambda g, ans, a, b: g * b, lambda g, ans, a, b: g * a, saves="xy",
    roles=("self", "tensor"), save_if={0: (1,), 1: (0,)},
    api="torch.dot Tensor.dot torch.matmul Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__",
    group="Matrix",
    note="grad_a = grad · b, grad_b = grad · a")
row("bmm", "BmmBackward0", np.matmul, _matmul_vjp_a, _matmul_vjp_b, saves="xy",
    roles=("self", "mat2"), save_if={0: (1,), 1: (0,)},
    api="torch.bmm Tensor.bmm torch.matmul Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__ "
        "torch.einsum",
    note="batch by batch: grad_a = grad @ bᵀ, grad_b = aᵀ @ grad")
row("addmm", "AddmmBackward0", lambda c, a, b, cols=None: c + _mat(a, b),
    lambda g, ans, c, a, b, cols=None: g, lambda g, ans, c, a, b, cols=None: _mm_grad_a(
        g, ans, a, b, cols),
    lambda g, ans, c, a, b, cols=None: _mm_grad_b(g, ans, a, b, cols), saves="yz",
    roles=("self", "mat1", "mat2"),
    save_if={1: (2,), 2: (1,)},
    param_defaults={"alpha": 1, "beta": 1},
    api="torch.addmm F.linear",
    note="bias gets grad (summed over the batch), mat1 gets grad @ mat2ᵀ, mat2 gets mat1ᵀ @ grad")

# -- shape (views share memory with their input) ---------------------------------------------------
row("view", "ViewBackward0", lambda x, shape, src_shape: x.reshape(shape),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape), view=True,
    api="torch.unflatten Tensor.unflatten torch.ravel Tensor.ravel Tensor.view Tensor.view_as "
        "F.flatten torch.reshape Tensor.reshape Tensor.reshape_as "
        "torch.flatten Tensor.flatten",
    group={"view": "Shape", "reshape": "Shape", "flatten": "Shape"},
    note="reshapes the grad back to the input's shape")
row("reshape_alias", "ReshapeAliasBackward0", lambda x, shape, src_shape: x.reshape(shape),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape), view=True,
    api="torch.reshape Tensor.reshape Tensor.reshape_as torch.flatten Tensor.flatten",
    note="reshapes the grad back to the input's shape")
row("alias", "AliasBackward0", lambda x: x.view(), lambda g, ans, x: g, view=True,
    api="Tensor.__getitem__",
    note="passes the grad unchanged (the result is the input itself, seen as a view: x[...])")
row("reshape_copy", "UnsafeViewBackward0", lambda x, shape, src_shape: x.reshape(shape).copy(),
    lambda g, ans, x, shape, src_shape: g.reshape(src_shape),
    api="torch.kron Tensor.kron torch.reshape Tensor.reshape torch.matmul Tensor.matmul "
        "Tensor.__matmul__ "
        "Tensor.__rmatmul__",
    note="reshapes the grad back to the input's shape (the result was copied, not a view)")
# dims None: a 0-d tensor (PyTorch's transpose(0, -1) of a scalar is the scalar, as a view)
row("transpose", "TransposeBackward0",
    lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1) if dim0 is not None else np.transpose(x),
    lambda g, ans, x, dim0, dim1: np.swapaxes(g, dim0, dim1) if dim0 is not None else g,
    view=True,
    api="torch.swapdims Tensor.swapdims torch.transpose torch.swapaxes Tensor.transpose "
        "Tensor.swapaxes Tensor.mT",
    group="Shape",
    note="transposes the grad back")
row("t", "TBackward0", lambda x: x.T, lambda g, ans, x: g.T, view=True,
    api="torch.t Tensor.t", group="Matrix",
    note="transposes the grad back")
row("permute", "PermuteBackward0", lambda x, dims: np.transpose(x, dims),
    lambda g, ans, x, dims: _unpermute(g, dims), view=True,
    api="torch.permute Tensor.permute Tensor.T torch.movedim Tensor.movedim torch.moveaxis "
        "Tensor.moveaxis torch.einsum", group="Shape",
    note="applies the inverse permutation to the grad")
row("squeeze", "SqueezeBackward0",
    lambda x, src_shape: x.reshape(tuple(n for n in src_shape if n != 1)),
    lambda g, ans, x, src_shape: g.reshape(src_shape), view=True,
    api="torch.squeeze Tensor.squeeze", group="Shape",
    note="puts the removed dimensions back into the grad")
row("squeeze_dim", "SqueezeBackward1", lambda x, dim, src_shape: x.reshape(
        tuple(n for i, n in enumerate(src_shape) if i != dim or n != 1)),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True,
    api="torch.squeeze Tensor.squeeze",
    note="puts the removed dimension (dim) back into the grad")
row("squeeze_dims", "SqueezeBackward2", lambda x, dims, src_shape: x.reshape(
        tuple(n for i, n in enumerate(src_shape) if i not in dims or n != 1)),
    lambda g, ans, x, dims, src_shape: g.reshape(src_shape), view=True,
    api="torch.squeeze Tensor.squeeze",
    note="puts the removed dimensions (dims) back into the grad")
row("unsqueeze", "UnsqueezeBackward0", lambda x, dim: np.expand_dims(x, dim),
    lambda g, ans, x, dim: np.squeeze(g, dim), view=True,
    api="torch.atleast_1d torch.atleast_2d torch.atleast_3d torch.unsqueeze Tensor.unsqueeze "
        "Tensor.__getitem__",
    group="Shape",
    note="squeezes the added dimension out of the grad")
row("expand", "ExpandBackward0", lambda x, shape: np.broadcast_to(x, shape),
    lambda g, ans, x, shape: g, view=True,
    api="torch.broadcast_to Tensor.broadcast_to torch.broadcast_tensors torch.meshgrid "
        "torch.take_along_dim Tensor.take_along_dim Tensor.expand Tensor.expand_as torch.matmul "
        "Tensor.matmul Tensor.__matmul__ "
        "Tensor.__rmatmul__",
    note="sums the grad over the expanded dimensions")
row("select", "SelectBackward0",
    # a view, as PyTorch's (the Ellipsis keeps a 0-d result a view rather than a numpy scalar)
    lambda x, dim, index, src_shape: x[(slice(None),) * dim + (index, ...)],
    lambda g, ans, x, dim, index, src_shape: _index_backward(
        g, ans, x, (slice(None),) * dim + (index,), src_shape), view=True,
    api="Tensor.__getitem__",
    note="scatters the grad into zeros at the selected index")
row("slice", "SliceBackward0", lambda x, index, src_shape: x[index],
    lambda g, ans, x, index, src_shape: _index_backward(g, ans, x, index, src_shape), view=True,
    api="torch.narrow Tensor.narrow torch.tensor_split Tensor.tensor_split torch.hsplit "
        "Tensor.hsplit torch.vsplit Tensor.vsplit torch.dsplit Tensor.dsplit Tensor.__getitem__",
    note="scatters the grad into zeros at the sliced positions")
row("index", "IndexBackward0", lambda x, index, src_shape: x[index],
    lambda g, ans, x, index, src_shape: _index_backward(g, ans, x, index, src_shape),
    api="Tensor.__getitem__",
    note="scatters the grad into zeros at the indexed positions (repeated indices add)")
row("clone", "CloneBackward0", lambda x: x.copy(), lambda g, ans, x: g,
    api="torch.repeat_interleave Tensor.repeat_interleave torch.clone Tensor.clone "
        "Tensor.contiguous",
    group="Shape",
    note="passes the grad unchanged")
row("to_dtype", "ToCopyBackward0", lambda x, dtype: x.astype(dtype),
    lambda g, ans, x, dtype: g, promote=False,
    api="Tensor.to Tensor.type Tensor.float Tensor.double Tensor.half Tensor.long Tensor.int "
        "Tensor.bool",
    note="casts the grad back to the input's dtype")
row("cat", "CatBackward0", lambda *xs, dim, sizes: np.concatenate(xs, axis=dim),
    api="torch.hstack torch.vstack torch.row_stack torch.dstack torch.column_stack torch.cat "
        "torch.concat torch.concatenate",
    group="Shape",
    note="slices the grad into the pieces that were concatenated")
row("stack", "StackBackward0", lambda *xs, dim: np.stack(xs, axis=dim),
    api="torch.cartesian_prod torch.stack", group="Shape",
    note="splits the grad along the stacked dimension")

# -- not differentiable, on purpose ----------------------------------------------------------------
nondiff("eq", np.equal,
    api="torch.eq Tensor.eq Tensor.__eq__",
    make="binary")
nondiff("ne", np.not_equal,
    api="torch.ne Tensor.ne Tensor.__ne__",
    make="binary")
nondiff("lt", np.less,
    api="torch.lt Tensor.lt Tensor.__lt__",
    make="binary")
nondiff("le", np.less_equal,
    api="torch.le Tensor.le Tensor.__le__",
    make="binary")
nondiff("gt", np.greater,
    api="torch.gt Tensor.gt Tensor.__gt__",
    make="binary")
nondiff("ge", np.greater_equal,
    api="torch.ge Tensor.ge Tensor.__ge__",
    make="binary")
nondiff("logical_and", np.logical_and,
    api="torch.logical_and Tensor.logical_and Tensor.logical_and_",
    make="binary")
nondiff("logical_or", np.logical_or,
    api="torch.logical_or Tensor.logical_or Tensor.logical_or_",
    make="binary")
nondiff("logical_xor", np.logical_xor,
    api="torch.logical_xor Tensor.logical_xor Tensor.logical_xor_",
    make="binary")
nondiff("logical_not", np.logical_not,
    api="torch.logical_not Tensor.logical_not Tensor.logical_not_",
    make="unary")


# bitwise ops: integer and bool tensors only, as PyTorch's kernels (their names in its errors)
def _integral(kernel, name):
    def forward(*xs):
        for x in xs:
            if x.__class__ is np.ndarray and x.dtype.kind == "f":
                from ..dtypes import scalar_type_name

                raise NotImplementedError(
                    f"\"{name}\" not implemented for '{scalar_type_name(x.dtype)}'")
        return kernel(*xs)
    return forward


def _left_shift(x, y):
    # PyTorch: a shift by a negative amount or by the width or more gives 0
    bits = x.dtype.itemsize * 8
    ok = (y >= 0) & (y < bits)
    return np.where(ok, np.left_shift(x, np.where(ok, y, 0).astype(x.dtype)), 0).astype(x.dtype)


def _right_shift(x, y):
    # PyTorch: out of range, the sign fills (signed) or 0 (unsigned)
    bits = x.dtype.itemsize * 8
    ok = (y >= 0) & (y < bits)
    fill = np.right_shift(x, bits - 1) if x.dtype.kind == "i" else np.zeros_like(x)
    return np.where(ok, np.right_shift(x, np.where(ok, y, 0).astype(x.dtype)), fill).astype(
        x.dtype)


for _name, _kernel, _cpu, _dunder in (
        ("and", np.bitwise_and, "bitwise_and_cpu", "and"),
        ("or", np.bitwise_or, "bitwise_or_cpu", "or"),
        ("xor", np.bitwise_xor, "bitwise_xor_cpu", "xor"),
        ("left_shift", _left_shift, "lshift_cpu", "lshift"),
        ("right_shift", _right_shift, "rshift_cpu", "rshift")):
    nondiff(f"bitwise_{_name}", _integral(_kernel, _cpu),
            api=f"torch.bitwise_{_name} Tensor.bitwise_{_name} Tensor.bitwise_{_name}_ "
                f"Tensor.__{_dunder}__ Tensor.__r{_dunder}__ Tensor.__i{_dunder}__",
            make="binary")
nondiff("bitwise_not", _integral(np.invert, "bitwise_not_cpu"),
        api="torch.bitwise_not Tensor.bitwise_not Tensor.bitwise_not_ Tensor.__invert__",
        make="unary")
del _name, _kernel, _cpu, _dunder
nondiff("isnan", np.isnan,
    api="torch.isnan Tensor.isnan",
    make="unary")
nondiff("isinf", np.isinf,
    api="torch.isinf Tensor.isinf",
    make="unary")
nondiff("isfinite", np.isfinite,
    api="torch.isfinite Tensor.isfinite",
    make="unary")
nondiff("argmax", lambda x, dim=None, keepdim=False: np.asarray(
    np.argmax(x, axis=dim, keepdims=keepdim), dtype=np.int64),
    api="torch.argmax Tensor.argmax")
nondiff("argmin", lambda x, dim=None, keepdim=False: np.asarray(
    np.argmin(x, axis=dim, keepdims=keepdim), dtype=np.int64),
    api="torch.argmin Tensor.argmin")


# -- piecewise constant and modular ops: PyTorch records them; their gradient is zero or g ---------

def _zero_grad(g, ans, x):
    return np.zeros_like(g)


_PIECEWISE = "zero: {} is piecewise constant (its derivative is 0 wherever it exists)"


row("sign", "SignBackward0", np.sign, _zero_grad,
    api="torch.sign Tensor.sign Tensor.sign_", make="unary",
    note=_PIECEWISE.format("sign"))
row("floor", "FloorBackward0", np.floor, _zero_grad,
    api="torch.floor Tensor.floor Tensor.floor_", make="unary",
    note=_PIECEWISE.format("floor"))
row("ceil", "CeilBackward0", np.ceil, _zero_grad,
    api="torch.ceil Tensor.ceil Tensor.ceil_", make="unary",
    note=_PIECEWISE.format("ceil"))
row("round", "RoundBackward0", np.round, _zero_grad, api="torch.round Tensor.round Tensor.round_",
    note=_PIECEWISE.format("round"))
row("trunc", "TruncBackward0", np.trunc, _zero_grad,
    api="torch.trunc torch.fix Tensor.trunc Tensor.fix Tensor.trunc_ Tensor.fix_", make="unary",
    note=_PIECEWISE.format("trunc"))
row("remainder", "RemainderBackward0", np.remainder, lambda g, ans, x, y=None: g, inputs=(0,),
    api="torch.remainder Tensor.remainder Tensor.remainder_ Tensor.__mod__",
    note="passes the grad unchanged: d(x mod n)/dx = 1 between the jumps (n is a number, with no "
         "edge)")
row("remainder_tensor", "RemainderBackward1", np.remainder, lambda g, ans, x, y: g,
    lambda g, ans, x, y: -g * np.floor_divide(x, y), saves="xy",
    api="torch.remainder Tensor.remainder Tensor.__mod__",
    note="x mod y = x − floor(x / y) · y: the grad to x, −grad · floor(x / y) to y")
row("fmod", "FmodBackward0", np.fmod, lambda g, ans, x, y=None: g, inputs=(0,),
    api="torch.fmod Tensor.fmod Tensor.fmod_",
    note="passes the grad unchanged: d fmod(x, n)/dx = 1 between the jumps (n is a number, with "
         "no edge)")
row("fmod_tensor", "FmodBackward1", np.fmod, lambda g, ans, x, y: g,
    lambda g, ans, x, y: -g * np.trunc(x / y), saves="xy",
    api="torch.fmod Tensor.fmod",
    note="fmod(x, y) = x − trunc(x / y) · y: the grad to x, −grad · trunc(x / y) to y")


def _not_implemented(name):
    def vjp(*args, **kw):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return vjp


# PyTorch records floor_divide with a node that raises when backward reaches it
row("floor_divide", "torch::autograd::NotImplemented", np.floor_divide,
    _not_implemented("floor_divide"), inputs=(0,),
    api="torch.floor_divide Tensor.floor_divide Tensor.__floordiv__ Tensor.__rfloordiv__ "
        "torch.div",
    note="floor division has no derivative in PyTorch: a backward pass that reaches this node "
         "raises")
row("floor_divide_tensor", "torch::autograd::NotImplemented", np.floor_divide,
    _not_implemented("floor_divide"), _not_implemented("floor_divide"),
    api="torch.floor_divide Tensor.floor_divide Tensor.__floordiv__ Tensor.__rfloordiv__ "
        "torch.div",
    note="floor division has no derivative in PyTorch: a backward pass that reaches this node "
         "raises")
row("rsub_tensor", "RsubBackward0", lambda x, y, alpha=1: y - alpha * x,
    lambda g, ans, x, y, alpha=1: -alpha * g, lambda g, ans, x, y, alpha=1: g,
    param_defaults={"alpha": 1},
    api="torch.rsub Tensor.rsub",
    note="rsub(x, y) = y − alpha · x: −alpha · grad to x, the grad unchanged to y")


def _clamp_tensor(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


row("clamp_tensor", "ClampBackward0", _clamp_tensor,
    lambda g, ans, x, lo, hi: np.where((x >= lo) & (x <= hi), g, 0).astype(g.dtype),
    lambda g, ans, x, lo, hi: np.where(x < lo, g, 0).astype(g.dtype),
    lambda g, ans, x, lo, hi: np.where(x > hi, g, 0).astype(g.dtype),
    saves="xyz", roles=("self", "min", "max"),
    api="torch.clamp torch.clip Tensor.clamp Tensor.clip",
    note="tensor bounds: the grad goes to x where min ≤ x ≤ max, to min where x < min, to max "
         "where x > max")


def _vector_norm(x, ord, dim, keepdim):
    if ord == 2:
        return np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))
    return np.sum(np.abs(x) ** ord, axis=dim, keepdims=keepdim) ** (1 / ord)


def _vector_norm_grad(g, ans, x, ord, dim, keepdim):
    norm = ans if keepdim or dim is None else np.expand_dims(ans, dim)
    g = g if keepdim or dim is None else np.expand_dims(g, dim)
    if ord == 1:
        return g * np.sign(x)
    scaled = x * np.abs(x) ** (ord - 2) / np.where(norm == 0, 1, norm ** (ord - 1))
    return g * np.where(norm == 0, 0, scaled).astype(x.dtype)


row("vector_norm", "LinalgVectorNormBackward0", _vector_norm, _vector_norm_grad, saves="xr",
    floating=True,
    api="torch.norm Tensor.norm", group={"norm": "Reductions"},
    note="grad · x · |x|ᵖ⁻² / ‖x‖ₚᵖ⁻¹ from the saved norm (grad · x / ‖x‖ for the 2-norm, grad · "
         "sign(x) for p = 1); zero where the norm is 0")


# ``at::norm(x, p, dim)``, the overload pairwise_distance calls: the same vector norm under
# the older node name
row("norm_dim", "NormBackward1", _vector_norm, _vector_norm_grad, saves="xr", floating=True,
    api="F.pairwise_distance F.triplet_margin_loss",
    note="as torch.norm: grad · x · |x|ᵖ⁻² / ‖x‖ₚᵖ⁻¹ from the saved norm, along one dim "
         "(pairwise_distance's node)")


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
    make = {"cat": _cat_grad, "stack": _stack_grad, "block_diag": _block_diag_grad}[name]
    return tuple(make(i) for i in range(n))


# -- rows used by in-place writes and by matmul's PyTorch decomposition ----------------------------
row("reciprocal", "ReciprocalBackward0", np.reciprocal, lambda g, ans, x: -g * (ans * ans),
    saves="r", floating=True,
    api="torch.reciprocal Tensor.reciprocal Tensor.reciprocal_", make="unary", group="Pointwise",
    note="−grad / x², computed as −grad · result² from the saved result")
row("squeeze_dim4", "SqueezeBackward4", lambda x, dim, src_shape: np.squeeze(x, dim),
    lambda g, ans, x, dim, src_shape: g.reshape(src_shape), view=True,
    api="torch.matmul Tensor.matmul Tensor.__matmul__ Tensor.__rmatmul__ Tensor.squeeze_",
    note="puts the removed dimension back into the grad (matmul's in-place squeeze_ of a vector @ "
         "matrix result)")
row("zero", "ZeroBackward0", np.zeros_like, lambda g, ans, x: np.zeros_like(g),
    api="Tensor.zero_",
    note="zero: the result (all zeros) does not depend on the input")
row("fill", "FillBackward2", lambda x, value: np.full_like(x, value),
    lambda g, ans, x, value: np.zeros_like(g),
    api="Tensor.fill_",
    note="zero: the filled value does not depend on the input")
row("copy", "torch::autograd::CopyBackwards",
    lambda x, y: np.broadcast_to(y, x.shape).astype(x.dtype),
    lambda g, ans, x, y: np.zeros_like(g), lambda g, ans, x, y: g, promote=False,
    api="Tensor.copy_ Tensor.__setitem__",
    note="zero to the overwritten tensor; the grad, summed back to the source's shape and cast to "
         "its dtype, to the source")
row("copy_slices", "torch::autograd::CopySlices", None,
    lambda g, ans, x, y, index: _zero_at(g, index), lambda g, ans, x, y, index: g[index],
    api="Tensor.__setitem__ Tensor.add_ Tensor.mul_",
    note="an in-place write into part of the base (x[index] = v, or an in-place op on a view of "
         "it): the written region's grad goes to what was written (v, or the op's own backward), "
         "the base gets the rest of the grad, zero in that region")
row("as_strided", "AsStridedBackward0",
    lambda x, positions, base_shape: x.reshape(-1)[positions],
    lambda g, ans, x, positions, base_shape: _scatter_flat(g, positions, base_shape),
    api="Tensor.__setitem__ Tensor.add_ Tensor.mul_",
    note="the view's grad read back from the base's: scatters the grad into zeros of the base's "
         "shape at the positions the view covers (positions covered twice add)")
row("index_put", "IndexPutBackward0", None,
    lambda g, ans, x, y, index: _zero_at(g, index), lambda g, ans, x, y, index: g[index],
    api="Tensor.__setitem__",
    note="x[index] = v with tensor indices: grad[index] goes to v, the grad with those positions "
         "zeroed to the old x")


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
        return _mean_all(loss, loss.dtype)
    if reduction == "sum":
        return torch_sum(loss, dtype=loss.dtype)
    return loss


def _unreduce(g, shape, reduction):
    """The incoming gradient spread over the unreduced loss (the mean's 1/N is applied later).
    Every caller multiplies by it, so a reduced loss's 0-d gradient array broadcasts in that
    product itself (the same bits; ``broadcast_to`` cost ~4 us a step); a Tensor (double
    backward) is broadcast here."""
    if reduction == "none" or g.__class__ is np.ndarray:
        return g
    return np.broadcast_to(g, shape)


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
    saves="xy", roles=("self", "target"),
    api="F.mse_loss", group="Losses",
    note="2 · (input − target) · grad / N")


# PyTorch's fused smooth-L1 and Huber kernels (``F.smooth_l1_loss``, ``F.huber_loss``: their
# argument handling is engine/nn/losses_more.py)
def _loss_norm(x, reduction):
    return np.asarray(1.0 / x.size if reduction == "mean" else 1.0, dtype=x.dtype)


def _smooth_l1(x, y, reduction, beta):
    z = np.abs(x - y)
    half = np.asarray(0.5, x.dtype)
    return _reduce(np.where(z < beta, half * z * z / np.asarray(beta, x.dtype),
                            z - half * np.asarray(beta, x.dtype)), reduction)


def _smooth_l1_grad(g, ans, x, y, reduction, beta, sign=1):
    # PyTorch: where(d < -beta, -norm, where(d > beta, norm, norm * d / beta)) * grad
    d, norm = x - y, _loss_norm(x, reduction)
    b = np.asarray(beta, d.dtype)
    grad = np.where(d < -beta, -norm, np.where(d > beta, norm, norm * d / b))
    return sign * grad * _unreduce(g, d.shape, reduction)


def _huber(x, y, reduction, delta):
    z = np.abs(x - y)
    half, dl = np.asarray(0.5, x.dtype), np.asarray(delta, x.dtype)
    return _reduce(np.where(z < delta, half * z * z, dl * (z - half * dl)), reduction)


def _huber_grad(g, ans, x, y, reduction, delta, sign=1):
    d, norm = x - y, _loss_norm(x, reduction)
    dl = np.asarray(delta, d.dtype)
    grad = np.where(d < -delta, -norm * dl, np.where(d > delta, norm * dl, norm * d))
    return sign * grad * _unreduce(g, d.shape, reduction)


row("smooth_l1_loss", "SmoothL1LossBackward0", _smooth_l1,
    _smooth_l1_grad, lambda g, ans, x, y, reduction, beta: _smooth_l1_grad(
        g, ans, x, y, reduction, beta, -1),
    saves="xy", roles=("self", "target"), api="F.smooth_l1_loss",
    group="Losses", note="(input − target) / beta inside ±beta, ±1 outside, × grad / N")
row("huber_loss", "HuberLossBackward0", _huber,
    _huber_grad, lambda g, ans, x, y, reduction, delta: _huber_grad(
        g, ans, x, y, reduction, delta, -1),
    saves="xy", roles=("self", "target"), api="F.huber_loss",
    group="Losses", note="(input − target) inside ±delta, ±delta outside, × grad / N")
row("nll_loss", "NllLossBackward0", _nll_loss, _nll_grad, saves="x",
    api="F.nll_loss F.cross_entropy", group={"nll_loss": "Losses", "cross_entropy": "Losses"},
    note="−grad / N at each target class, zero elsewhere")
row("nll_loss2d", "NllLoss2DBackward0", _nll_loss, _nll_grad, saves="x",
    api="F.nll_loss F.cross_entropy",
    note="per pixel: −grad · weight at the target class (divided by the total weight of the "
         "counted targets for the mean), zero elsewhere and at ignore_index")
row("binary_cross_entropy", "BinaryCrossEntropyBackward0", _bce, _bce_grad_x, _bce_grad_y,
    saves="xy", roles=("self", "target"),
    api="F.binary_cross_entropy", group="Losses",
    note="grad · (x − y) / (x · (1 − x)) to the input, grad · ln((1 − x) / x) to the target "
         "(times weight; / N for the mean)")
row("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", _bce_logits,
    _bce_logits_grad_x, _bce_logits_grad_y, saves="xy", roles=("self", "target"),
    api="F.binary_cross_entropy_with_logits", group="Losses",
    note="grad · (σ(x) − y) to the logits, −grad · x to the target (pos_weight and weight scale "
         "them; / N for the mean)")
# ``tensor op number`` as PyTorch's C++ records it inside cross_entropy (the Scalar overloads)
row("div_scalar", "DivBackward1", lambda x, other: x / np.asarray(other, x.dtype),
    lambda g, ans, x, other: g / np.asarray(other, g.dtype),
    api="F.cross_entropy",
    note="grad / n (the divisor n is a number, with no edge)")
row("mul_scalar", "MulBackward1", lambda x, other: x * np.asarray(other, x.dtype),
    lambda g, ans, x, other: g * np.asarray(other, g.dtype),
    api="F.cross_entropy",
    note="grad · n (the factor n is a number, with no edge)")
row("add_scalar", "AddBackward1", lambda x, other: x + np.asarray(other, x.dtype),
    lambda g, ans, x, other: g,
    api="F.cross_entropy",
    note="passes the grad unchanged (the addend is a number, with no edge)")
# ``tensor - number`` as PyTorch's C++ records it inside cosine_embedding_loss (sub.Scalar)
row("sub_scalar", "SubBackward1", lambda x, other: x - np.asarray(other, x.dtype),
    lambda g, ans, x, other: g,
    api="F.cosine_embedding_loss",
    note="passes the grad unchanged (the subtrahend is a number, with no edge)")
row("masked_fill", "MaskedFillBackward0",
    lambda x, mask, value: np.where(mask, np.asarray(value, x.dtype), x),
    lambda g, ans, x, mask, value: np.where(mask, np.zeros((), g.dtype), g),
    api="F.cross_entropy torch.masked_fill Tensor.masked_fill Tensor.masked_fill_",
    note="passes the grad where the mask is False, zero where the value was filled in")


# -- log1p, expm1, prod, var/std, cumsum and the smooth activations --------------------------------
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
    floating=True,
    api="torch.log1p Tensor.log1p Tensor.log1p_", make="unary", group="Pointwise",
    note="grad / (1 + x)")
row("expm1", "Expm1Backward0", np.expm1, lambda g, ans, x: g * (ans + 1), saves="r",
    floating=True,
    api="torch.expm1 Tensor.expm1 Tensor.expm1_", make="unary", group="Pointwise",
    note="grad · (result + 1), i.e. grad · exp(x)")
row("prod", "ProdBackward0",
    lambda x, dtype=None: np.prod(x, dtype=_sum_dtype(x) if dtype is None else dtype),
    _prod_grad, saves="xr",
    api="torch.prod Tensor.prod", group="Reductions",
    note="grad · (the product of all the other elements) to each element")
row("prod_dim", "ProdBackward1",
    lambda x, dim, keepdim, dtype=None: np.prod(
        x, axis=dim, keepdims=keepdim, dtype=_sum_dtype(x) if dtype is None else dtype),
    _prod_grad, saves="xr",
    api="torch.prod Tensor.prod",
    note="along dim: grad · (the product of the other elements in that slice)")
row("var", "VarBackward0", _var, _var_grad, saves="x",
    api="torch.var Tensor.var", group="Reductions",
    note="grad · 2 · (x − mean) / (n − correction)")
row("std", "StdBackward0", lambda x, dim, correction, keepdim: np.sqrt(
        _var(x, dim, correction, keepdim)), _std_grad, saves="xr",
    api="torch.std Tensor.std", group="Reductions",
    note="grad · (x − mean) / ((n − correction) · std), from the saved std")
row("cumsum", "CumsumBackward0", _cumsum, _cumsum_grad,
    api="torch.cumsum Tensor.cumsum", group="Reductions",
    note="a reversed cumulative sum of the grad: each element gets the grads of every running "
         "total it is part of")
row("leaky_relu", "LeakyReluBackward0",
    lambda x, negative_slope: np.where(x > 0, x, x * negative_slope).astype(x.dtype),
    lambda g, ans, x, negative_slope: np.where(x > 0, g, g * negative_slope), saves="x",
    api="F.leaky_relu", group="Activations",
    note="passes the grad where x > 0, grad · negative_slope elsewhere")
# in place (``inplace=True``): PyTorch saves the result instead of the input
row("leaky_relu_", "LeakyReluBackward1",
    lambda x, negative_slope: np.where(x > 0, x, x * negative_slope).astype(x.dtype),
    lambda g, ans, x, negative_slope: np.where(ans > 0, g, g * negative_slope), saves="r",
    api="F.leaky_relu",
    note="passes the grad where the result > 0, grad · negative_slope elsewhere (in place: "
         "decided from the saved result)")
row("gelu", "GeluBackward0", _gelu, _gelu_grad, saves="x",
    api="F.gelu", group="Activations",
    note="grad · (Φ(x) + x · φ(x)), with Φ, φ the normal CDF and density")
row("softplus", "SoftplusBackward0", _softplus, _softplus_grad, saves="x",
    api="F.softplus", group="Activations",
    note="grad · σ(beta · x) (grad itself past the threshold)")
row("elu", "EluBackward0", _elu,
    lambda g, ans, x, alpha: np.where(x <= 0, g * alpha * np.exp(np.minimum(x, 0)), g),
    saves="x",
    api="F.elu", group="Activations",
    note="passes the grad where x > 0, grad · (result + alpha) elsewhere")
row("elu_", "EluBackward1", _elu,
    lambda g, ans, x, alpha: np.where(ans <= 0, g * (ans + alpha), g), saves="r",
    api="F.elu",
    note="as EluBackward0, decided from the saved result (in place)")
row("silu", "SiluBackward0", lambda x: x / (1 + np.exp(-x)),
    lambda g, ans, x: (lambda s: g * s * (1 + x * (1 - s)))(_sigmoid(x)), saves="x",
    api="F.silu", group="Activations",
    note="grad · σ(x) · (1 + x · (1 − σ(x)))")


# -- issue 14: more of the tensor API (pointwise math) ---------------------------------------------
row("log10", "Log10Backward0", np.log10, lambda g, ans, x: g / (x * 2.302585092994046), saves="x",
    floating=True,
    api="torch.log10 Tensor.log10 Tensor.log10_", make="unary", group="Pointwise",
    note="grad / (x · ln 10)")
row("log2", "Log2Backward0", np.log2, lambda g, ans, x: g / (x * 0.6931471805599453), saves="x",
    floating=True,
    api="torch.log2 Tensor.log2 Tensor.log2_", make="unary", group="Pointwise",
    note="grad / (x · ln 2)")
row("asin", "AsinBackward0", np.arcsin, lambda g, ans, x: g / np.sqrt(-x * x + 1), saves="x",
    floating=True,
    api="torch.asin torch.arcsin Tensor.asin Tensor.arcsin Tensor.asin_ Tensor.arcsin_",
    make="unary", group="Pointwise",
    note="grad / sqrt(1 − x²)")
row("acos", "AcosBackward0", np.arccos, lambda g, ans, x: -(g / np.sqrt(-x * x + 1)), saves="x",
    floating=True,
    api="torch.acos torch.arccos Tensor.acos Tensor.arccos Tensor.acos_ Tensor.arccos_",
    make="unary", group="Pointwise",
    note="−grad / sqrt(1 − x²)")
row("atan", "AtanBackward0", np.arctan, lambda g, ans, x: g / (x * x + 1), saves="x",
    floating=True,
    api="torch.atan torch.arctan Tensor.atan Tensor.arctan Tensor.atan_ Tensor.arctan_",
    make="unary", group="Pointwise",
    note="grad / (1 + x²)")
row("sinh", "SinhBackward0", np.sinh, lambda g, ans, x: g * np.cosh(x), saves="x",
    floating=True,
    api="torch.sinh Tensor.sinh Tensor.sinh_", make="unary", group="Pointwise",
    note="grad · cosh(x)")
row("cosh", "CoshBackward0", np.cosh, lambda g, ans, x: g * np.sinh(x), saves="x",
    floating=True,
    api="torch.cosh Tensor.cosh Tensor.cosh_", make="unary", group="Pointwise",
    note="grad · sinh(x)")
row("atan2", "Atan2Backward0", np.arctan2,
    lambda g, ans, x, y: g * y / (x * x + y * y), lambda g, ans, x, y: g * -x / (x * x + y * y),
    saves="xy", floating=True,
    api="torch.atan2 torch.arctan2 Tensor.atan2 Tensor.arctan2 Tensor.atan2_ Tensor.arctan2_",
    make="binary",
    note="atan2(y=self, x=other): grad · other / (self² + other²) to self, −grad · self / (self² + "
         "other²) to other")


# -- layers: convolution, pooling, padding (numpy kernels in engine/ops/layers.py) ----------------
# Called from engine/nn/functional.py with the arguments already checked and normalised
# (stride, padding, dilation as tuples over the spatial dims); bias may be None (no edge).
from . import layers as _layers  # noqa: E402

row("convolution", "ConvolutionBackward0", _layers.conv_forward,
    _layers.conv_grad_input, _layers.conv_grad_weight, _layers.conv_grad_bias,
    saves="xy", roles=("input", "weight", "bias"), promote=False,
    api="F.conv1d F.conv2d",
    note="grad_input: the output grad correlated back through the flipped kernel (transposed "
         "convolution); grad_weight: output grad × input windows summed over batch and "
         "positions; grad_bias: output grad summed over all but the channel dim")
row("convolution_transpose", "ConvolutionBackward0", _layers.conv_transpose_forward,
    _layers.conv_transpose_grad_input, _layers.conv_transpose_grad_weight,
    _layers.conv_transpose_grad_bias,
    saves="xy", roles=("input", "weight", "bias"), promote=False,
    api="F.conv_transpose1d F.conv_transpose2d",
    note="grad_input: the output grad convolved with the same kernel; grad_weight: input × "
         "output-grad windows summed over batch and positions; grad_bias: output grad summed "
         "over all but the channel dim")
row("constant_pad_nd", "ConstantPadNdBackward0", _layers.constant_pad, _layers.constant_pad_grad,
    promote=False, api="F.pad F.conv1d F.conv2d",
    note="the grad with the padded border cut off (cropped parts get zero)")
row("max_pool2d", "MaxPool2DWithIndicesBackward0", _layers.max_pool_forward,
    _layers.max_pool_grad, saves="x", promote=False, api="F.max_pool2d",
    note="each output's grad goes to the input element that was the window's max (first of "
         "ties); zero elsewhere, summed where windows overlap")
row("avg_pool2d", "AvgPool2DBackward0", _layers.avg_pool_forward, _layers.avg_pool_grad,
    saves="x", promote=False, api="F.avg_pool2d",
    note="each output's grad spread evenly (÷ window size) over its window, summed where "
         "windows overlap")
row("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", _layers.adaptive_avg_pool_forward,
    _layers.adaptive_avg_pool_grad, saves="x", promote=False, api="F.adaptive_avg_pool2d",
    note="each output's grad spread evenly over its (adaptive) window")
row("native_batch_norm", "NativeBatchNormBackward0", _layers.batch_norm_forward,
    _layers.batch_norm_grad_input, _layers.batch_norm_grad_weight, _layers.batch_norm_grad_bias,
    saves="xy", roles=("input", "weight", "bias"), promote=False, api="F.batch_norm",
    note="training: invstd / N · (N·ĝ − Σĝ − x̂·Σ(ĝ·x̂)) per channel, ĝ = grad · weight; eval: "
         "grad · weight · invstd of the running var; weight: Σ grad · x̂; bias: Σ grad")
row("native_layer_norm", "NativeLayerNormBackward0", _layers.layer_norm_forward,
    _layers.layer_norm_grad_input, _layers.layer_norm_grad_weight, _layers.layer_norm_grad_bias,
    saves="xy", roles=("input", "weight", "bias"), promote=False, api="F.layer_norm",
    note="invstd · (ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) over the normalized dims, ĝ = grad · weight; "
         "weight: Σ grad · x̂; bias: Σ grad (over the leading dims)")
row("embedding", "EmbeddingBackward0", _layers.embedding_forward, _layers.embedding_grad,
    roles=("weight",), promote=False, api="F.embedding",
    note="each looked-up row's grad added into that row of the weight's grad (repeats add up); "
         "the padding_idx row gets zero")

# recurrent and attention layers (engine/nn/recurrent.py, attention.py, utils/rnn.py); their
# fused nodes are NODE_OPS rows, below
row("pack_padded_sequence", "PackPaddedSequenceBackward0", _layers.pack_padded,
    _layers.pack_padded_grad, roles=("input",), promote=False,
    api="torch._pack_padded_sequence nn.utils.rnn.pack_padded_sequence",
    note="each packed row's grad goes back to its (step, sequence) place in the padded input; "
         "the padding gets zero")

def _safe_softmax(x, dim):
    """Softmax where a row of all -inf gives zeros (not NaN), as ``at::_safe_softmax``."""
    m = x.max(axis=dim, keepdims=True)
    dead = np.isneginf(m)
    e = np.exp(x - np.where(dead, 0, m))
    total = e.sum(axis=dim, keepdims=True)
    return np.where(dead, 0, e / np.where(dead, 1, total)).astype(x.dtype, copy=False)


row("safe_softmax", "SafeSoftmaxBackward0", lambda x, dim: _safe_softmax(x, dim),
    lambda g, ans, x, dim: ans * (g - (g * ans).sum(axis=dim, keepdims=True)), saves="r",
    api="torch._safe_softmax F.scaled_dot_product_attention",
    note="y · (grad − Σ grad · y), with y the saved softmax (rows masked out entirely are zero)")
row("baddbmm", "BaddbmmBackward0",
    lambda c, a, b, beta=1, alpha=1: alpha * (a @ b) if beta == 0 else beta * c + alpha * (a @ b),
    lambda g, ans, c, a, b, beta=1, alpha=1: g if beta == 1 else g * beta,
    lambda g, ans, c, a, b, beta=1, alpha=1: alpha * (g @ np.swapaxes(b, -1, -2)),
    lambda g, ans, c, a, b, beta=1, alpha=1: alpha * (np.swapaxes(a, -1, -2) @ g),
    saves="yz", roles=("self", "batch1", "batch2"), param_defaults={"alpha": 1, "beta": 1},
    api="torch.baddbmm Tensor.baddbmm Tensor.baddbmm_ nn.MultiheadAttention",
    note="β·input + α·batch1 @ batch2: grad_input = β·grad; grad_batch1 = α·grad @ batch2ᵀ, "
         "grad_batch2 = α·batch1ᵀ @ grad")


# -- issue 14: triangles, masks, gather/scatter, index_select/index_copy -------------------------
# Index arrays are parameters (PyTorch gives them no edge); a rule reads them as constants.

def _tri_mask(shape, diagonal, lower):
    n, m = shape[-2], shape[-1]
    mask = np.tri(n, m, diagonal, dtype=bool)
    return mask if lower else ~np.tri(n, m, diagonal - 1, dtype=bool)


def _keep_tri(x, diagonal, lower):
    return np.where(_tri_mask(x.shape, diagonal, lower), x, np.zeros_like(x))


def _along(index, dim):
    """The full numpy index of ``index`` (gather/scatter's): its own values at ``dim``, each
    element's own position elsewhere."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def _gather(x, dim, index):
    return x[_along(index, dim)]


def _scatter(x, src, dim, index):
    out = x.copy()
    where = _along(index, dim)
    out[where] = src[tuple(slice(0, n) for n in index.shape)] if src.ndim else src
    return out


def _scatter_value(x, dim, index, value):
    out = x.copy()
    out[_along(index, dim)] = value
    return out


def _scatter_add(x, src, dim, index):
    out = x.copy()
    np.add.at(out, _along(index, dim), src[tuple(slice(0, n) for n in index.shape)])
    return out


def _gathered_grad(g, src_shape, dim, index, node="ScatterBackward0"):
    """A gradient for scatter's source: the grad read at the scattered positions."""
    picked = g[_along(index, dim)]
    if tuple(src_shape) != tuple(index.shape) and len(src_shape) == len(index.shape):
        # PyTorch's formula (``grad.gather(dim, index)``) has the index's shape: its engine
        # refuses it for a larger source
        raise RuntimeError(
            f"Function {node} returned "
            f"an invalid gradient at index 1 - got [{', '.join(map(str, index.shape))}] but "
            f"expected shape compatible with [{', '.join(map(str, src_shape))}]")
    return picked


def _gather_grad(g, ans, x, dim, index, shape):
    out = np.zeros_like(g, shape=shape)
    np.add.at(out, _along(index, dim), g)
    return out


def _dim_index(dim, index):
    return (slice(None),) * dim + (index,)


def _index_copy(x, src, dim, index):
    out = x.copy()
    out[_dim_index(dim, index)] = src
    return out


row("tril", "TrilBackward0", lambda x, diagonal: _keep_tri(x, diagonal, True),
    lambda g, ans, x, diagonal: _keep_tri(g, diagonal, True),
    param_defaults={"diagonal": 0},
    api="torch.tril Tensor.tril Tensor.tril_", group="Matrix",
    note="passes the grad on and below the diagonal (the kept lower triangle), zero above it")
row("triu", "TriuBackward0", lambda x, diagonal: _keep_tri(x, diagonal, False),
    lambda g, ans, x, diagonal: _keep_tri(g, diagonal, False),
    param_defaults={"diagonal": 0},
    api="torch.triu Tensor.triu Tensor.triu_", group="Matrix",
    note="passes the grad on and above the diagonal (the kept upper triangle), zero below it")
row("masked_fill_tensor", "MaskedFillBackward1",
    lambda x, value, mask: np.where(mask, value.astype(x.dtype), x),
    lambda g, ans, x, value, mask: np.where(mask, np.zeros((), g.dtype), g),
    lambda g, ans, x, value, mask: np.sum(np.where(mask, g, np.zeros((), g.dtype))),
    roles=("self", "value"), promote=False,
    api="torch.masked_fill Tensor.masked_fill Tensor.masked_fill_",
    note="passes the grad where the mask is False to self; the 0-d value gets the sum of the grad "
         "where the mask is True (where it was filled in)")
row("gather", "GatherBackward0", lambda x, dim, index, shape: _gather(x, dim, index),
    _gather_grad,
    api="torch.gather Tensor.gather",
    note="scatters the grad into zeros at the gathered positions (positions gathered twice add)")
row("scatter", "ScatterBackward0",
    lambda x, src, dim, index, src_shape: _scatter(x, src, dim, index),
    lambda g, ans, x, src, dim, index, src_shape: _zero_at(g, _along(index, dim)),
    lambda g, ans, x, src, dim, index, src_shape: _gathered_grad(g, src_shape, dim, index),
    roles=("self", "src"),
    api="torch.scatter Tensor.scatter Tensor.scatter_",
    note="the grad with the overwritten positions zeroed to self; the grad gathered at the "
         "written positions to src")
row("scatter_value", "ScatterBackward1",
    lambda x, dim, index, value: _scatter_value(x, dim, index, value),
    lambda g, ans, x, dim, index, value: _zero_at(g, _along(index, dim)),
    api="torch.scatter Tensor.scatter Tensor.scatter_",
    note="the grad with the overwritten positions zeroed (the scattered value is a number, with no "
         "edge)")
row("scatter_add", "ScatterAddBackward0",
    lambda x, src, dim, index, src_shape: _scatter_add(x, src, dim, index),
    lambda g, ans, x, src, dim, index, src_shape: g,
    lambda g, ans, x, src, dim, index, src_shape: _gathered_grad(
        g, src_shape, dim, index, "ScatterAddBackward0"),
    roles=("self", "src"),
    api="torch.scatter_add Tensor.scatter_add Tensor.scatter_add_",
    note="the grad unchanged to self; the grad gathered at the positions each src element was "
         "added into to src")
row("index_select", "IndexSelectBackward0", lambda x, dim, index, shape: np.take(x, index, dim),
    lambda g, ans, x, dim, index, shape: _index_backward(g, ans, x, _dim_index(dim, index), shape),
    api="torch.index_select Tensor.index_select",
    note="scatters the grad into zeros at the selected indices along dim (repeated indices add)")
row("index_copy", "IndexCopyBackward0", lambda x, src, dim, index: _index_copy(x, src, dim, index),
    lambda g, ans, x, src, dim, index: _zero_at(g, _dim_index(dim, index)),
    lambda g, ans, x, src, dim, index: g[_dim_index(dim, index)],
    roles=("self", "source"),
    api="torch.index_copy Tensor.index_copy Tensor.index_copy_",
    note="the grad with the copied-over indices zeroed to self; the grad at those indices along "
         "dim to source")
nondiff("all", lambda x, dim=None, keepdim=False: np.asarray(np.all(x, axis=dim, keepdims=keepdim)),
        api="torch.all Tensor.all")
nondiff("any", lambda x, dim=None, keepdim=False: np.asarray(np.any(x, axis=dim, keepdims=keepdim)),
        api="torch.any Tensor.any")


# -- issue 14: flip, repeat, trace -----------------------------------------------------------------

def _repeat(x, repeats):
    lead = len(repeats) - x.ndim
    return np.tile(x.reshape((1,) * lead + x.shape), repeats)


def _repeat_grad(g, ans, x, repeats, shape):
    """Each copy's grad summed back: the result's dims split into (repeat, size) pairs, the repeat
    axes summed (PyTorch's repeat_backward)."""
    sizes = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    split = []
    for r, n in zip(repeats, sizes):
        split += [r, n]
    summed = g.reshape(tuple(split)).sum(axis=tuple(range(0, 2 * len(repeats), 2)))
    return summed.reshape(tuple(shape))


def _trace_grad(g, ans, x, shape):
    k = min(shape)
    diag = np.arange(k)
    return _index_backward(np.broadcast_to(g, (k,)), None, None, (diag, diag), shape)


row("flip", "FlipBackward0", lambda x, dims: np.flip(x, dims).copy(),
    lambda g, ans, x, dims: np.flip(g, dims), int_lists=("dims",),
    api="torch.fliplr Tensor.fliplr torch.flipud Tensor.flipud torch.flip Tensor.flip",
    group="Shape",
    note="flips the grad back along the same dims")
row("repeat", "RepeatBackward0", lambda x, repeats, shape: _repeat(x, repeats), _repeat_grad,
    int_lists=("repeats",),
    api="Tensor.repeat torch.tile Tensor.tile", group={"repeat": "Shape"},
    note="sums the grads of all the copies back onto the one input")
row("trace", "TraceBackward0",
    lambda x, shape: np.asarray(np.trace(x, dtype=_sum_dtype(x))), _trace_grad,
    api="torch.trace Tensor.trace", group="Matrix",
    note="puts the (scalar) grad on the diagonal, zero elsewhere")


# -- issue 14: sorting, selection along a dim, roll, diag, in-place views --------------------------
# ``indices`` (a parameter, int64, found by engine/ops/api.py) are the positions along ``dim`` the
# values were taken from, keepdim-shaped; the grad goes back to them (zeros elsewhere).

def _picked(x, dim, indices, keepdim=True):
    out = _gather(x, dim, indices)
    return out if keepdim else np.squeeze(out, dim)


def _picked_grad(g, dim, indices, shape, keepdim=True):
    return _gather_grad(g if keepdim else np.expand_dims(g, dim), None, None, dim, indices, shape)


def _median_all(x):
    flat = np.sort(x.reshape(-1))  # PyTorch's median: the lower of the two middle values
    return np.asarray(flat[(flat.size - 1) // 2])


def _diag_index(shape, diagonal):
    """The (row, column) positions of diagonal ``diagonal`` of a matrix of ``shape``."""
    rows, cols = shape
    k = max(0, min(rows + min(diagonal, 0), cols - max(diagonal, 0)))
    i = np.arange(k)
    return (i - min(diagonal, 0), i + max(diagonal, 0))


def _roll(x, shifts, dims):
    """torch.roll: along ``dims``, or over the flattened tensor when ``dims`` is empty."""
    return np.roll(x, shifts, dims) if dims else np.roll(x, shifts[0])


def _negated(shifts):
    return tuple(-s for s in shifts)


row("topk", "TopkBackward0", lambda x, dim, indices, shape: _picked(x, dim, indices),
    lambda g, ans, x, dim, indices, shape: _picked_grad(g, dim, indices, shape),
    api="torch.topk Tensor.topk",
    note="scatters the grad of the k values back to the positions they were taken from (zero "
         "elsewhere)")
row("sort", "SortBackward0", lambda x, dim, indices, shape: _picked(x, dim, indices),
    lambda g, ans, x, dim, indices, shape: _picked_grad(g, dim, indices, shape),
    api="torch.msort Tensor.msort torch.sort Tensor.sort",
    note="un-sorts the grad: each sorted value's grad goes back to the position it came from")
row("kthvalue", "KthvalueBackward0",
    lambda x, dim, indices, keepdim, shape: _picked(x, dim, indices, keepdim),
    lambda g, ans, x, dim, indices, keepdim, shape: _picked_grad(g, dim, indices, shape, keepdim),
    api="torch.kthvalue Tensor.kthvalue",
    note="the grad goes to the element whose index kthvalue returned, zero elsewhere")
row("median_dim", "MedianBackward1",
    lambda x, dim, indices, keepdim, shape: _picked(x, dim, indices, keepdim),
    lambda g, ans, x, dim, indices, keepdim, shape: _picked_grad(g, dim, indices, shape, keepdim),
    api="torch.median Tensor.median",
    note="along dim: the grad goes to the element whose index the median returned, zero "
         "elsewhere")
row("median", "MedianBackward0", _median_all,
    lambda g, ans, x: _minmax_grad(g, ans, x, None, False), saves="xr",
    api="torch.median Tensor.median",
    note="the median of all elements: the grad is split evenly among the elements equal to it, "
         "zero elsewhere")
nondiff("argsort", lambda x, dim=-1, descending=False: np.asarray(np.argsort(
    -x if descending else x, axis=dim, kind="stable"), dtype=np.int64),
    api="torch.argsort Tensor.argsort")
nondiff("one_hot", lambda x, num_classes=None: np.asarray(np.arange(
    int(x.max()) + 1 if num_classes is None else num_classes) == x[..., None], dtype=np.int64),
    api="F.one_hot")
row("roll", "RollBackward0", lambda x, shifts, dims: _roll(x, shifts, dims),
    lambda g, ans, x, shifts, dims: _roll(g, _negated(shifts), dims),
    int_lists=("shifts", "dims"),
    api="torch.roll Tensor.roll",
    note="rolls the grad back by the same shifts")
row("diag_embed", "DiagEmbedBackward0",
    lambda x, diagonal, dim1=0, dim2=1: _diag_embed(x, diagonal, dim1, dim2),
    lambda g, ans, x, diagonal, dim1=0, dim2=1: _diagonal_take(g, diagonal, dim1, dim2),
    api="torch.diag Tensor.diag torch.diag_embed Tensor.diag_embed torch.diagflat "
        "Tensor.diagflat",
    note="reads the grad back off the diagonal the vector was put on")
row("diagonal_copy", "DiagonalBackward0_copy",
    lambda x, diagonal, shape: x[_diag_index(shape, diagonal)],
    lambda g, ans, x, diagonal, shape: _index_backward(
        g, ans, x, _diag_index(shape, diagonal), shape),
    api="torch.diag Tensor.diag",
    note="puts the grad on the diagonal that was read, zero elsewhere")


def _diagonal(x, offset, dim1, dim2):
    """``x.diagonal(offset, dim1, dim2)`` as a writable view (numpy's ``diagonal`` is read-only):
    the other dims first, the diagonal last, as PyTorch's."""
    start = [slice(None)] * x.ndim
    start[dim1], start[dim2] = slice(-min(offset, 0), None), slice(max(offset, 0), None)
    corner = x[tuple(start)]
    k = max(0, min(corner.shape[dim1], corner.shape[dim2]))
    other = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    return np.lib.stride_tricks.as_strided(
        corner, tuple(x.shape[d] for d in other) + (k,),
        tuple(x.strides[d] for d in other) + (x.strides[dim1] + x.strides[dim2],))


def _diagonal_grad(g, offset, dim1, dim2, shape):
    """The grad put back on the diagonal of zeros of ``shape``, by index (traceable)."""
    rows, cols = _diag_index((shape[dim1], shape[dim2]), offset)
    index = [slice(None)] * len(shape)
    index[dim1], index[dim2] = rows, cols
    # numpy puts the indexed (diagonal) dim where the two indices stand if they are adjacent,
    # first otherwise; PyTorch's diagonal has it last
    at = min(dim1, dim2) if abs(dim1 - dim2) == 1 else 0
    return _index_backward(np.moveaxis(g, -1, at), None, None, tuple(index), shape)


row("diagonal", "DiagonalBackward0",
    lambda x, offset, dim1, dim2, shape: _diagonal(x, offset, dim1, dim2),
    lambda g, ans, x, offset, dim1, dim2, shape: _diagonal_grad(g, offset, dim1, dim2, shape),
    view=True,
    api="torch.diagonal Tensor.diagonal torch.einsum",
    note="puts the grad back on the diagonal it was read from (zeros elsewhere)")
# in-place view ops (``y.t_()``): self takes the new shape and the node
row("unsqueeze_", "UnsqueezeBackward1", lambda x, dim: np.expand_dims(x, dim),
    lambda g, ans, x, dim: np.squeeze(g, dim),
    api="Tensor.unsqueeze_",
    note="squeezes the added dimension out of the grad (in place: self was unsqueezed)")
row("squeeze_", "SqueezeBackward3",
    lambda x, src_shape: x.reshape(tuple(n for n in src_shape if n != 1)),
    lambda g, ans, x, src_shape: g.reshape(src_shape),
    api="Tensor.squeeze_",
    note="puts the removed dimensions back into the grad (in place: self was squeezed)")
row("t_", "TBackward1", lambda x: x.T, lambda g, ans, x: g.T,
    api="Tensor.t_",
    note="transposes the grad back (in place: self was transposed)")
row("transpose_", "TransposeBackward1", lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
    lambda g, ans, x, dim0, dim1: np.swapaxes(g, dim0, dim1),
    api="Tensor.transpose_",
    note="transposes the grad back (in place: self's two dims were swapped)")


# -- issue 14: the API sweep (ops tutorials use that the corpus missed) ----------------------------


def _floating_kernel(kernel, name):
    """A kernel PyTorch has for floating dtypes only (its name in the error)."""
    def forward(x, *args, **params):
        if x.dtype.kind != "f":
            from ..dtypes import scalar_type_name

            raise NotImplementedError(
                f"\"{name}\" not implemented for '{scalar_type_name(x.dtype)}'")
        return kernel(x, *args, **params)
    return forward

# pointwise math, as PyTorch's derivatives.yaml writes each rule

_PI = 3.141592653589793
_LN2 = 0.6931471805599453
_TWO_BY_SQRT_PI = 1.1283791670955126


def _erfinv(x):
    """erfinv: a rational first guess (Giles), then Newton steps on the Cephes erf above."""
    w = -np.log((1 - x) * (1 + x))
    small = w < 5
    ws, wl = w - 2.5, np.sqrt(np.maximum(w, 5)) - 3
    p = np.where(small, 2.81022636e-08, -0.000200214257)
    for cs, cl in ((3.43273939e-07, 0.000100950558), (-3.5233877e-06, 0.00134934322),
                   (-4.39150654e-06, -0.00367342844), (0.00021858087, 0.00573950773),
                   (-0.00125372503, -0.0076224613), (-0.00417768164, 0.00943887047),
                   (0.246640727, 1.00167406), (1.50140941, 2.83297682)):
        p = np.where(small, cs + p * ws, cl + p * wl)
    y = p * x
    for _ in range(3):
        y = y - (_erf_array(y) - x) / (_TWO_BY_SQRT_PI * np.exp(-y * y))
    return np.where(np.abs(x) == 1, np.copysign(np.inf, x), y).astype(x.dtype)


def _sinc(x):
    px = _PI * x
    safe = np.where(x == 0, 1, px)
    return np.where(x == 0, 1, np.sin(safe) / safe).astype(x.dtype)


def _sinc_grad(g, ans, x):
    px = _PI * x
    safe = np.where(x == 0, 1, x)
    d = (px * np.cos(px) - np.sin(px)) / (_PI * safe * safe)
    return g * np.where(x == 0, 0, d).astype(x.dtype)


for _name, _node, _fwd, _rule, _saves, _note in (
        ("tan", "TanBackward0", np.tan, lambda g, ans, x: g * (1 + ans * ans), "r",
         "grad · (1 + tan²(x)), from the saved result"),
        ("asinh", "AsinhBackward0", np.arcsinh, lambda g, ans, x: g / np.sqrt(x * x + 1), "x",
         "grad / √(x² + 1)"),
        ("acosh", "AcoshBackward0", np.arccosh, lambda g, ans, x: g / np.sqrt(x * x - 1), "x",
         "grad / √(x² − 1)"),
        ("atanh", "AtanhBackward0", np.arctanh, lambda g, ans, x: g / (1 - x * x), "x",
         "grad / (1 − x²)"),
        ("rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x),
         lambda g, ans, x: -0.5 * g * ans * ans * ans, "r", "−grad · result³ / 2"),
        ("exp2", "Exp2Backward0", np.exp2, lambda g, ans, x: g * ans * _LN2, "r",
         "grad · 2ˣ · ln 2, from the saved result"),
        ("erf", "ErfBackward0", _erf, lambda g, ans, x: g * _TWO_BY_SQRT_PI * np.exp(-x * x), "x",
         "grad · 2/√π · exp(−x²)"),
        ("erfc", "ErfcBackward0", lambda x: (1 - _erf(x.astype(np.float64))).astype(x.dtype),
         lambda g, ans, x: -g * _TWO_BY_SQRT_PI * np.exp(-x * x), "x",
         "−grad · 2/√π · exp(−x²)"),
        ("erfinv", "ErfinvBackward0", _erfinv,
         lambda g, ans, x: g / _TWO_BY_SQRT_PI * np.exp(ans * ans), "r",
         "grad · √π/2 · exp(erfinv(x)²), from the saved result"),
        ("deg2rad", "Deg2RadBackward0", lambda x: x * np.asarray(_PI / 180, x.dtype),
         lambda g, ans, x: g * (_PI / 180), "", "grad · π/180"),
        ("rad2deg", "Rad2DegBackward0", lambda x: x * np.asarray(180 / _PI, x.dtype),
         lambda g, ans, x: g * (180 / _PI), "", "grad · 180/π"),
        ("sinc", "SincBackward0", _sinc, _sinc_grad, "x",
         "grad · (πx·cos(πx) − sin(πx)) / (πx²), zero at 0")):
    _alias = {"asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}.get(_name)
    row(_name, _node, _fwd, _rule, saves=_saves, floating=True,
        api=f"torch.{_name} Tensor.{_name} Tensor.{_name}_"
            + (f" torch.{_alias} Tensor.{_alias} Tensor.{_alias}_" if _alias else ""),
        make="unary", note=_note)
del _name, _node, _fwd, _rule, _saves, _note, _alias
row("frac", "FracBackward0", _floating_kernel(lambda x: x - np.trunc(x), "frac_cpu"),
    lambda g, ans, x: g,
    api="torch.frac Tensor.frac Tensor.frac_", make="unary",
    note="passes the grad unchanged: x − trunc(x) has slope 1 between the jumps")
row("sgn", "SgnBackward0", np.sign, _zero_grad,
    api="torch.sgn Tensor.sgn Tensor.sgn_", make="unary",
    note=_PIECEWISE.format("sgn"))
row("logit", "LogitBackward0",
    lambda x, eps=None: np.log(_clamp(x, eps, 1 - eps) / (1 - _clamp(x, eps, 1 - eps)))
    if eps is not None else np.log(x / (1 - x)),
    lambda g, ans, x, eps=None: _logit_grad(g, x, eps), saves="x", floating=True,
    api="torch.logit Tensor.logit Tensor.logit_",
    note="grad / (x · (1 − x)); with eps, zero outside [eps, 1 − eps]")
row("nan_to_num", "NanToNumBackward0", lambda x, nan, posinf, neginf: np.nan_to_num(
    x, nan=nan, posinf=posinf, neginf=neginf),
    lambda g, ans, x, nan, posinf, neginf: g * np.isfinite(x), saves="x",
    api="torch.nan_to_num Tensor.nan_to_num Tensor.nan_to_num_",
    note="the grad where x is finite, zero where it was nan or ±inf (replaced by constants)")


def _logit_grad(g, x, eps):
    if eps is None:
        return g / (x * (1 - x))
    inside = (x >= eps) & (x <= 1 - eps)
    return np.where(inside, g / (x * (1 - x)), 0).astype(g.dtype)


def _logaddexp(x, y, exp, log1p_exp):
    top = np.maximum(x, y)
    both_inf = np.isinf(x) & (x == y)  # logaddexp(inf, inf) is inf, not nan
    return np.where(both_inf, x, top + log1p_exp(-np.abs(x - y)))


row("hypot", "HypotBackward0", np.hypot,
    lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans, saves="xyr",
    api="torch.hypot Tensor.hypot Tensor.hypot_", make="binary",
    note="grad · x / result to x, grad · y / result to y (result = √(x² + y²))")
row("logaddexp", "LogaddexpBackward0",
    lambda x, y: _logaddexp(x, y, np.exp, lambda d: np.log1p(np.exp(d))),
    lambda g, ans, x, y: g / (1 + np.exp(y - x)), lambda g, ans, x, y: g / (1 + np.exp(x - y)),
    saves="xy", floating=True,
    api="torch.logaddexp Tensor.logaddexp", make="binary",
    note="log(eˣ + eʸ): grad · σ(x − y) to x, grad · σ(y − x) to y")
row("logaddexp2", "Logaddexp2Backward0",
    lambda x, y: _logaddexp(x, y, np.exp2, lambda d: np.log1p(np.exp2(d)) / _LN2),
    lambda g, ans, x, y: g / (1 + np.exp2(y - x)), lambda g, ans, x, y: g / (1 + np.exp2(x - y)),
    saves="xy", floating=True,
    api="torch.logaddexp2 Tensor.logaddexp2", make="binary",
    note="log₂(2ˣ + 2ʸ): grad / (1 + 2ʸ⁻ˣ) to x, grad / (1 + 2ˣ⁻ʸ) to y")
row("xlogy", "XlogyBackward0",
    lambda x, y: np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y)).astype(np.result_type(x, y)),
    lambda g, ans, x, y: np.where((x == 0) & (y <= 0), 0, g * np.log(y)).astype(g.dtype),
    lambda g, ans, x, y: g * x / y, saves="xy", floating=True,
    api="torch.xlogy Tensor.xlogy Tensor.xlogy_", make="binary",
    note="x · log(y): grad · log(y) to x (0 where x = 0 and y ≤ 0), grad · x / y to y")
row("fmax", "FmaxBackward0", np.fmax,
    lambda g, ans, x, y: np.where((x >= y) | np.isnan(y), g, 0).astype(g.dtype),
    lambda g, ans, x, y: np.where((x >= y) | np.isnan(y), 0, g).astype(g.dtype), saves="xy",
    api="torch.fmax Tensor.fmax", make="binary",
    note="the grad to the larger input (ignoring nan), ties to x")
row("fmin", "FminBackward0", np.fmin,
    lambda g, ans, x, y: np.where((x <= y) | np.isnan(y), g, 0).astype(g.dtype),
    lambda g, ans, x, y: np.where((x <= y) | np.isnan(y), 0, g).astype(g.dtype), saves="xy",
    api="torch.fmin Tensor.fmin", make="binary",
    note="the grad to the smaller input (ignoring nan), ties to x")
row("copysign", "CopysignBackward0", np.copysign,
    lambda g, ans, x, y: _copysign_grad(g, ans, x), lambda g, ans, x, y: np.zeros_like(g),
    saves="xr", floating=True,
    api="torch.copysign Tensor.copysign Tensor.copysign_",
    note="|x| with y's sign: grad · result / x to x (zero at x = 0), zero to y")
row("copysign_scalar", "CopysignBackward1", np.copysign,
    lambda g, ans, x, y=None: _copysign_grad(g, ans, x), saves="xr", floating=True, inputs=(0,),
    api="torch.copysign Tensor.copysign Tensor.copysign_",
    note="|x| with the number's sign: grad · result / x (zero at x = 0)")


def _copysign_grad(g, ans, x):
    return g * np.where(x == 0, 0, ans / np.where(x == 0, 1, x)).astype(g.dtype)
row("heaviside", "torch::autograd::NotImplemented",
    lambda x, v: np.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype),
    _not_implemented("heaviside"), inputs=(0,),
    api="torch.heaviside Tensor.heaviside Tensor.heaviside_",
    note="the step function has no derivative in PyTorch: a backward pass that reaches this node "
         "raises")
row("lerp", "LerpBackward0", lambda x, y, weight: x + weight * (y - x),
    lambda g, ans, x, y, weight: g * (1 - weight), lambda g, ans, x, y, weight: g * weight,
    api="torch.lerp Tensor.lerp Tensor.lerp_",
    note="start + weight · (end − start), weight a number: grad · (1 − weight) to start, "
         "grad · weight to end")
row("lerp_tensor", "LerpBackward1", lambda x, y, w: x + w * (y - x),
    lambda g, ans, x, y, w: g * (1 - w), lambda g, ans, x, y, w: g * w,
    lambda g, ans, x, y, w: g * (y - x), saves="xyz", roles=("self", "end", "weight"),
    api="torch.lerp Tensor.lerp Tensor.lerp_",
    note="start + weight · (end − start): grad · (1 − weight) to start, grad · weight to end, "
         "grad · (end − start) to weight")
row("clamp_min", "ClampMinBackward0", lambda x, min: np.maximum(x, np.asarray(min, x.dtype)),
    lambda g, ans, x, min: np.where(x >= min, g, 0).astype(g.dtype), saves="x",
    api="torch.clamp_min Tensor.clamp_min Tensor.clamp_min_",
    note="the grad where x ≥ min, zero where it was clamped")
row("clamp_max", "ClampMaxBackward0", lambda x, max: np.minimum(x, np.asarray(max, x.dtype)),
    lambda g, ans, x, max: np.where(x <= max, g, 0).astype(g.dtype), saves="x",
    api="torch.clamp_max Tensor.clamp_max Tensor.clamp_max_",
    note="the grad where x ≤ max, zero where it was clamped")
row("addcmul", "AddcmulBackward0", lambda x, y, z, value=1: x + value * (y * z),
    lambda g, ans, x, y, z, value=1: g, lambda g, ans, x, y, z, value=1: g * value * z,
    lambda g, ans, x, y, z, value=1: g * value * y, saves="yz",
    roles=("self", "tensor1", "tensor2"), param_defaults={"value": 1},
    api="torch.addcmul Tensor.addcmul Tensor.addcmul_",
    note="x + value · t1 · t2: the grad to x, grad · value · t2 to t1, grad · value · t1 to t2")
row("addcdiv", "AddcdivBackward0", lambda x, y, z, value=1: x + value * (y / z),
    lambda g, ans, x, y, z, value=1: g, lambda g, ans, x, y, z, value=1: g * value / z,
    lambda g, ans, x, y, z, value=1: -g * value * y / (z * z), saves="yz",
    roles=("self", "tensor1", "tensor2"), param_defaults={"value": 1},
    api="torch.addcdiv Tensor.addcdiv Tensor.addcdiv_",
    note="x + value · t1 / t2: the grad to x, grad · value / t2 to t1, −grad · value · t1 / t2² "
         "to t2")


# -- reductions and scans ------------------------------------------------------------------------

def _scan_grad_loop(g, x, dim):
    """cumprod's gradient where x may hold zeros: for each k, the sum over j ≥ k of g_j times the
    product of x_0..x_j without x_k (O(n²) along dim)."""
    xm, gm = np.moveaxis(x, dim, -1), np.moveaxis(g, dim, -1)
    n = xm.shape[-1]
    out = np.zeros_like(xm)
    for k in range(n):
        run = np.prod(xm[..., :k], axis=-1)
        total = gm[..., k] * run
        for j in range(k + 1, n):
            run = run * xm[..., j]
            total = total + gm[..., j] * run
        out[..., k] = total
    return np.moveaxis(out, -1, dim)


def _cumprod_grad(g, ans, x, dim):
    if x.ndim == 0:
        return g
    if np.all(x != 0):  # the usual case: the reversed cumsum of grad · result, over x
        return np.flip(np.cumsum(np.flip(g * ans, dim), axis=dim), dim) / x
    return _scan_grad_loop(g, x, dim)


def _logcumsumexp_grad(g, ans, x, dim):
    if x.ndim == 0:
        return g
    top = np.max(ans, axis=dim, keepdims=True)  # a shift that keeps the exponentials finite
    w = g * np.exp(top - ans)
    return np.flip(np.cumsum(np.flip(w, dim), axis=dim), dim) * np.exp(x - top)


def _logsumexp(x, dim, keepdim):
    top = np.max(x, axis=dim, keepdims=True)
    top = np.where(np.isinf(top), 0, top)
    out = np.log(np.sum(np.exp(x - top), axis=dim, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, dim)


def _reduced_keep(a, dim, keepdim):
    if keepdim:
        return a
    for d in sorted(dim):
        a = np.expand_dims(a, d)
    return a


row("cumprod", "CumprodBackward0",
    lambda x, dim, dtype=None: x.astype(dtype if dtype is not None else _sum_dtype(x))
    if x.ndim == 0 else np.cumprod(x, axis=dim, dtype=dtype or _sum_dtype(x)),
    lambda g, ans, x, dim, dtype=None: _cumprod_grad(g, ans, x, dim), saves="xr",
    api="torch.cumprod Tensor.cumprod Tensor.cumprod_",
    note="each x_k's grad: the sum over later positions j of grad_j · (the product up to j "
         "without x_k)")
row("logcumsumexp", "LogcumsumexpBackward0",
    lambda x, dim: x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=dim),
    lambda g, ans, x, dim: _logcumsumexp_grad(g, ans, x, dim), saves="xr", floating=True,
    api="torch.logcumsumexp Tensor.logcumsumexp",
    note="each x_k's grad: the sum over later positions j of grad_j · exp(x_k − result_j)")
row("logsumexp", "LogsumexpBackward0", _logsumexp,
    lambda g, ans, x, dim, keepdim: _reduced_keep(g, dim, keepdim) * np.exp(
        x - _reduced_keep(ans, dim, keepdim)), saves="xr", floating=True, int_lists=("dim",),
    api="torch.logsumexp Tensor.logsumexp",
    note="grad · softmax(x) over the reduced dims: grad · exp(x − result)")
row("nansum", "NansumBackward0",
    lambda x, dim, keepdim, dtype=None: np.nansum(x, axis=dim, keepdims=keepdim,
                                                  dtype=dtype or _sum_dtype(x)),
    lambda g, ans, x, dim, keepdim, dtype=None: np.where(
        np.isnan(x), 0, _expand_reduced(g, x.shape, dim, keepdim)).astype(g.dtype),
    saves="x", int_lists=("dim",),
    api="torch.nansum Tensor.nansum torch.nanmean Tensor.nanmean",
    note="expands the grad over the summed dims, zero where x was nan")
for _kind in ("max", "min"):
    row(f"cum{_kind}", f"Cum{_kind}Backward0",
        lambda x, dim, indices: _picked(x, dim, indices),
        lambda g, ans, x, dim, indices: _picked_grad(g, dim, indices, x.shape),
        saves="x",
        api=f"torch.cum{_kind} Tensor.cum{_kind}",
        note=f"each running {_kind}'s grad goes to the element it was taken from (added up "
             "there)")
del _kind
row("mode", "ModeBackward0",
    lambda x, dim, indices, keepdim, shape: _picked(x, dim, indices, keepdim),
    lambda g, ans, x, dim, indices, keepdim, shape: _picked_grad(g, dim, indices, shape, keepdim),
    api="torch.mode Tensor.mode",
    note="the grad goes to the element whose index mode returned, zero elsewhere")


def _dist_grad(g, ans, x, y, p):
    d = x - y
    if p == 0:
        return np.zeros_like(g * d)
    if p == np.inf:
        a = np.abs(d)
        mask = a == ans
        return g * np.sign(d) * mask / np.maximum(mask.sum(), 1)
    if p == 1:
        return g * np.sign(d)
    scaled = d * np.abs(d) ** (p - 2) / np.where(ans == 0, 1, ans ** (p - 1))
    return g * np.where(ans == 0, 0, scaled).astype(d.dtype)


def _dist(x, y, p):
    d = np.abs(x - y)
    if p == 0:
        return np.asarray(np.count_nonzero(d), dtype=d.dtype)
    if p == np.inf:
        return np.asarray(d.max() if d.size else 0, dtype=d.dtype)
    return np.asarray(np.sum(d ** p) ** (1 / p), dtype=d.dtype)


row("dist", "DistBackward0", _dist, lambda g, ans, x, y, p: _dist_grad(g, ans, x, y, p),
    lambda g, ans, x, y, p: -_dist_grad(g, ans, x, y, p), saves="xyr",
    api="torch.dist Tensor.dist",
    note="‖x − y‖ₚ: grad · (x − y) · |x − y|ᵖ⁻² / ‖x − y‖ₚᵖ⁻¹ to x, its negative to y")


# -- matrices and blocks ---------------------------------------------------------------------------

def _diagonal_take(g, offset, dim1, dim2):
    """The diagonal of ``g`` (last), by index: traceable, unlike the view ``_diagonal``."""
    rows, cols = _diag_index((g.shape[dim1], g.shape[dim2]), offset)
    index = [slice(None)] * g.ndim
    index[dim1], index[dim2] = rows, cols
    at = min(dim1, dim2) if abs(dim1 - dim2) == 1 else 0
    return np.moveaxis(g[tuple(index)], at, -1)


def _diag_embed(x, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    shape = list(x.shape[:-1])
    for d in sorted((dim1, dim2)):
        shape.insert(d, n)
    out = np.zeros(tuple(shape), dtype=x.dtype)
    _diagonal(out, offset, dim1, dim2)[...] = x
    return out


row("rot90", "Rot90Backward0", lambda x, k, dims: np.rot90(x, k, dims).copy(),
    lambda g, ans, x, k, dims: np.rot90(g, -k, dims), int_lists=("dims",),
    api="torch.rot90 Tensor.rot90",
    note="rotates the grad back by the same quarter turns")
row("linalg_cross", "LinalgCrossBackward0", lambda x, y, dim: np.cross(x, y, axis=dim),
    lambda g, ans, x, y, dim: np.cross(y, g, axis=dim),
    lambda g, ans, x, y, dim: np.cross(g, x, axis=dim), saves="xy",
    roles=("self", "other"),
    api="torch.cross Tensor.cross",
    note="x × y: grad_x = y × grad, grad_y = grad × x")


def _block_diag(*xs):
    xs = [x.reshape(1, -1) if x.ndim == 1 else x.reshape(1, 1) if x.ndim == 0 else x for x in xs]
    rows = sum(x.shape[0] for x in xs)
    cols = sum(x.shape[1] for x in xs)
    out = np.zeros((rows, cols), dtype=np.result_type(*xs) if xs else np.float32)
    r = c = 0
    for x in xs:
        out[r:r + x.shape[0], c:c + x.shape[1]] = x
        r, c = r + x.shape[0], c + x.shape[1]
    return out


def _block_diag_grad(i):
    def rule(g, ans, *inputs, shapes):
        r = c = 0
        for k, s in enumerate(shapes):
            m = s if len(s) == 2 else (1, s[0]) if len(s) == 1 else (1, 1)
            if k == i:
                return g[r:r + m[0], c:c + m[1]].reshape(s)
            r, c = r + m[0], c + m[1]
        raise IndexError(i)
    return rule


row("block_diag", "BlockDiagBackward0", lambda *xs, shapes: _block_diag(*xs),
    api="torch.block_diag",
    note="each input's grad is its own block of the grad")


def _cdist(x1, x2, p):
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return np.count_nonzero(d, axis=-1).astype(x1.dtype)
    if p == np.inf:
        return d.max(axis=-1) if d.shape[-1] else np.zeros(d.shape[:-1], x1.dtype)
    return (np.sum(d ** p, axis=-1) ** (1 / p)).astype(x1.dtype)


def _cdist_grad(g, ans, x1, x2, p):
    """d dist_ij / d x1_i, weighted by g_ij and summed over j."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    dist = ans[..., None]
    if p == 0:
        w = np.zeros_like(diff)
    elif p == 1:
        w = np.sign(diff)
    elif p == np.inf:
        w = np.sign(diff) * (np.abs(diff) == dist)
    else:
        w = diff * np.abs(diff) ** (p - 2) / np.where(dist == 0, 1, dist ** (p - 1))
        w = np.where(dist == 0, 0, w)
    return np.sum(g[..., None] * w, axis=-2).astype(x1.dtype)


row("cdist", "CdistBackward0", _cdist,
    lambda g, ans, x1, x2, p: _cdist_grad(g, ans, x1, x2, p),
    lambda g, ans, x1, x2, p: _cdist_grad(np.swapaxes(g, -1, -2), np.swapaxes(ans, -1, -2), x2,
                                          x1, p),
    saves="xyr", roles=("x1", "x2"),
    api="torch.cdist",
    note="the p-norm distance of every row of x1 to every row of x2: each row's grad sums "
         "grad_ij · ∂‖x1_i − x2_j‖ₚ over the other side's rows")
row("index_add", "IndexAddBackward0", lambda x, src, dim, index, alpha=1: _index_add(
    x, src, dim, index, alpha),
    lambda g, ans, x, src, dim, index, alpha=1: g,
    lambda g, ans, x, src, dim, index, alpha=1: np.take(g, index, dim) * alpha
    if src.ndim else np.take(g, index, dim).reshape(()) * alpha,
    saves="y", roles=("self", "source"), param_defaults={"alpha": 1},
    api="torch.index_add Tensor.index_add Tensor.index_add_",
    note="the grad to x; the grad at the indexed positions (times alpha) to source")
row("index_fill", "IndexFillBackward0", lambda x, dim, index, value: _index_fill(
    x, dim, index, value),
    lambda g, ans, x, dim, index, value: _index_fill(g, dim, index, 0),
    api="Tensor.index_fill Tensor.index_fill_ torch.index_fill",
    note="the grad with the filled positions zeroed (they no longer depend on x)")


def _index_add(x, src, dim, index, alpha):
    out = x.copy()
    where = _dim_index(dim, index)
    np.add.at(out, where, src * alpha if src.ndim else np.broadcast_to(src * alpha,
                                                                        out[where].shape))
    return out


def _index_fill(x, dim, index, value):
    out = x.copy() if isinstance(x, np.ndarray) else x * 1
    out[_dim_index(dim, index)] = value
    return out


# -- special functions, factorizations, gamma draws (torch.distributions uses them) ----------------
# kernels in engine/ops/special.py, ATen's
from . import special as _special  # noqa: E402


def _times(g, x, name, **params):
    """``g · f(x)`` for the row ``name``'s f: its kernel on arrays; on create_graph's traced
    values that row, recorded, so a further derivative exists (digamma's is polygamma(1)...)."""
    if x.__class__ is np.ndarray or not hasattr(x, "fused"):
        return g * OPS[name].forward(x, **params)
    return g * x.fused(OPS[name], **params)


row("lgamma", "LgammaBackward0", lambda x: _special.elementwise(_special.lgamma1, x),
    lambda g, ans, x: _times(g, x, "digamma"), saves="x", floating=True,
    api="torch.lgamma Tensor.lgamma Tensor.lgamma_", make="unary",
    note="grad · digamma(x): the derivative of log|Γ(x)|")
row("digamma", "DigammaBackward0", _special.digamma,
    lambda g, ans, x: _times(g, x, "polygamma", n=1), saves="x", floating=True,
    api="torch.digamma Tensor.digamma Tensor.digamma_", make="unary",
    note="grad · polygamma(1, x) (trigamma): the derivative of ψ(x) = Γ′(x)/Γ(x)")
row("polygamma", "PolygammaBackward0", lambda x, n: _special.polygamma(n, x),
    lambda g, ans, x, n: _times(g, x, "polygamma", n=n + 1), saves="x", floating=True,
    roles=("self",), api="torch.polygamma Tensor.polygamma",
    note="grad · polygamma(n + 1, x): each polygamma is the next one's antiderivative")
row("polygamma_", "PolygammaBackward1", lambda x, n: _special.polygamma(n, x),
    lambda g, ans, x, n: _times(g, x, "polygamma", n=n + 1), saves="x", floating=True,
    roles=("self",), api="Tensor.polygamma_",
    note="in place: grad · polygamma(n + 1, x) of the input before the write")


def _column_major(a):
    """``a`` with each matrix stored by columns, as LAPACK returns them to ATen (so reshapes
    of the result copy or alias as torch's do)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)


def _solve_tri(a, b, upper):
    """``linalg.solve_triangular(a, b, upper=upper)`` (left side), batched, in a's dtype."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a64 = np.broadcast_to(a.astype(np.float64), shape + a.shape[-2:])
    b64 = np.broadcast_to(b.astype(np.float64), shape + b.shape[-2:])
    keep = (np.triu if upper else np.tril)(np.ones(a.shape[-2:], bool))
    return np.linalg.solve(np.where(keep, a64, 0), b64).astype(np.result_type(a, b))


def _cholesky(x):
    try:
        return _column_major(np.linalg.cholesky(x.astype(np.float64)).astype(x.dtype))
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because "
                           "the input is not positive-definite.") from None


def _cholesky_grad(g, ans, x):
    # Iain Murray (2016), as ATen's cholesky_backward: phi(Lᴴ gL) between L⁻ᴴ and L⁻¹
    eye = np.broadcast_to(np.eye(ans.shape[-1], dtype=ans.dtype), ans.shape)
    l_inv = _solve_tri(ans, eye, upper=False)
    phi = np.tril(np.swapaxes(ans, -1, -2) @ g)
    idx = np.arange(ans.shape[-1])
    phi[..., idx, idx] *= 0.5
    ga = np.swapaxes(l_inv, -1, -2) @ phi @ l_inv
    return 0.5 * (ga + np.swapaxes(ga, -1, -2))


def _solve_tri_grads(g, ans, a, b, upper):
    gb = _solve_tri(np.swapaxes(a, -1, -2), g, upper=not upper)
    ga = -gb @ np.swapaxes(ans, -1, -2)
    return (np.triu(ga) if upper else np.tril(ga)), gb


row("linalg_cholesky", "LinalgCholeskyExBackward0", _cholesky, _cholesky_grad, saves="r",
    api="torch.linalg.cholesky",
    note="Murray's rule: Φ(Lᵀ·grad) (lower triangle, half diagonal) taken back through L⁻ᵀ "
         "and L⁻¹, then symmetrised")
row("solve_triangular", "LinalgSolveTriangularBackward0",
    lambda a, b, upper: _column_major(_solve_tri(a, b, upper)),
    lambda g, ans, a, b, upper: _solve_tri_grads(g, ans, a, b, upper)[0],
    lambda g, ans, a, b, upper: _solve_tri_grads(g, ans, a, b, upper)[1], saves="xyr",
    api="torch.linalg.solve_triangular",
    note="X = A⁻¹B: grad_B = A⁻ᵀ·grad, grad_A = −grad_B·Xᵀ kept on A's triangle")


def _standard_gamma(alpha):
    from .. import random as _random

    return _random.standard_gamma(_random.default_generator, alpha)


row("standard_gamma", "StandardGammaBackward0", _standard_gamma,
    lambda g, ans, alpha: g * _special.per_element(_special.gamma_grad_one, alpha, ans),
    saves="xr", api="torch._standard_gamma",
    note="reparameterised: grad · ∂sample/∂α, the implicit derivative −(∂F/∂α)/f of the gamma "
         "cdf F at the drawn sample (ATen's standard_gamma_grad)")

# -- not differentiable, on purpose: counts, positions, bins, sets ---------------------------------
nondiff("count_nonzero", lambda x, dim=None: np.asarray(np.count_nonzero(x, axis=dim),
                                                        dtype=np.int64),
        api="torch.count_nonzero Tensor.count_nonzero")
nondiff("nonzero", lambda x: np.argwhere(x).astype(np.int64),
        api="torch.nonzero Tensor.nonzero torch.argwhere Tensor.argwhere")
nondiff("signbit", np.signbit, api="torch.signbit Tensor.signbit", make="unary")
nondiff("isneginf", np.isneginf, api="torch.isneginf Tensor.isneginf", make="unary")
nondiff("isposinf", np.isposinf, api="torch.isposinf Tensor.isposinf", make="unary")
nondiff("isreal", lambda x: np.ones(x.shape, dtype=bool), api="torch.isreal Tensor.isreal",
        make="unary")
nondiff("bincount", lambda x, weights=None, minlength=0: np.bincount(
    x, weights=weights, minlength=minlength),
    api="torch.bincount Tensor.bincount")
nondiff("histc", lambda x, bins, min, max: np.histogram(
    x, bins=bins, range=(min, max))[0].astype(x.dtype),
    api="torch.histc Tensor.histc")
nondiff("unique", lambda x, dim=None: np.unique(x, axis=dim),
        api="torch.unique Tensor.unique")
nondiff("searchsorted", lambda s, v, right=False, dtype=np.int64: _searchsorted(
    s, v, right).astype(dtype), promote=False,
    api="torch.searchsorted torch.bucketize")


def _searchsorted(s, v, right):
    side = "right" if right else "left"
    if s.ndim <= 1:
        return np.searchsorted(s, v, side=side)
    lead = s.shape[:-1]
    flat_s, flat_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(flat_s, flat_v)])
    return out.reshape(lead + (v.shape[-1],))


# -- rows whose node computes its gradient itself --------------------------------------------------
# ``unbind`` (iterating a tensor): one UnbindBackward0 for all its outputs (``autograd.node.
# UnbindNode``)
NODE_OPS: dict[str, Op] = {}
row("unbind", "UnbindBackward0", None, roles=(), table=NODE_OPS,
    api="Tensor.unbind Tensor.__iter__",
    note="stacks the outputs' grads back along dim (zeros for an output no grad reached)")

row("split", "SplitBackward0", None, roles=(), table=NODE_OPS,
    api="torch.split Tensor.split torch.chunk Tensor.chunk",
    note="concatenates the outputs' grads back along dim (zeros for an output no grad reached)")
row("split_with_sizes", "SplitWithSizesBackward0", None, roles=(), table=NODE_OPS,
    api="torch.split Tensor.split",
    note="concatenates the outputs' grads back along dim (zeros for an output no grad reached)")
# PyTorch's fused CPU kernels of the recurrent and attention layers, with several outputs: one
# ``autograd.node.FusedNode`` (``dispatch.record_fused``) whose backward is a kernel of
# engine/ops/layers.py (no create_graph)
row("mkldnn_rnn_layer", "MkldnnRnnLayerBackward0", None,
    roles=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"), table=NODE_OPS,
    api="nn.LSTM",
    note="back-propagation through time of one LSTM layer and direction: the grads of its "
         "output sequence and final (h, c) flow back step by step through the gates to the "
         "input, the weights, the biases and the initial (h, c)")
row("scaled_dot_product_flash_attention_for_cpu",
    "ScaledDotProductFlashAttentionForCpuBackward0", None, roles=("query", "key", "value"),
    table=NODE_OPS,
    api="F.scaled_dot_product_attention",
    note="softmax(q·kᵀ·scale + mask)·v backwards: grad_v = Pᵀ·grad, grad of the scores "
         "P·(grad·vᵀ − rowsum), then grad_q = dS·k·scale, grad_k = dSᵀ·q·scale")
# PyTorch's cells split their gates so: pieces autograd does not treat as views
row("unsafe_split", "UnsafeSplitBackward0", None, roles=(), table=NODE_OPS,
    api="torch.unsafe_split Tensor.unsafe_split torch.unsafe_chunk Tensor.unsafe_chunk",
    note="concatenates the outputs' grads back along dim (zeros for an output no grad reached)")

# PyTorch's functions of ``torch`` that are in-place methods too (``torch.sin_(x)`` is
# ``x.sin_()``: ``[n for n in dir(torch) if n.endswith("_")]``): spelled on every row that spells
# the method
TORCH_INPLACE = frozenset("""
    abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_
    atan_ atanh_ ceil_ celu_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ dropout_ erf_
    erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_ log2_ log_
    logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rrelu_ rsqrt_ selu_
    sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ threshold_ trunc_ xlogy_ zero_
""".split())
for _table in (OPS, NODE_OPS):
    for _op in _table.values():
        _op.api += tuple(f"torch.{s[7:]}" for s in _op.api
                         if s.startswith("Tensor.") and s[7:] in TORCH_INPLACE)
del _table, _op

# ops of two differentiable outputs, one ``autograd.node.PairNode`` for both
row("var_mean", "VarMeanBackward0", None, roles=(), table=NODE_OPS,
    api="torch.var_mean",
    note="the variance's grad (2 · grad · (x − mean) / (N − correction)) plus the mean's grad "
         "spread evenly (grad / N)")
row("std_mean", "StdMeanBackward0", None, roles=(), table=NODE_OPS,
    api="torch.std_mean",
    note="the standard deviation's grad (grad · (x − mean) / ((N − correction) · std)) plus the "
         "mean's grad spread evenly (grad / N)")
row("aminmax", "AminmaxBackward0", None, roles=(), table=NODE_OPS,
    api="torch.aminmax Tensor.aminmax",
    note="the min's grad split evenly among the elements equal to the min, the max's among those "
         "equal to the max")


def pair_grad(name, grads, x, outs, dim, keepdim, correction=None):
    """The input's gradient of a two-output row from its outputs' gradients (None: none)."""
    total = np.zeros_like(x)
    first, second = grads
    if name == "aminmax":
        for g, ans in zip(grads, outs):
            if g is not None:
                total = total + _amax_grad(g, ans, x, dim, keepdim)
        return total
    if first is not None:
        spread = OPS["var" if name == "var_mean" else "std"].vjps[0]
        total = total + spread(first, outs[0], x, dim, correction, keepdim)
    if second is not None:
        total = total + _expand_reduced(second, x.shape, dim, keepdim) / _count(x.shape, dim)
    return total


ACCUMULATE_GRAD_NOTE = ("adds the incoming grad into the leaf's .grad (creating it if it was "
                        "None): this is where .grad gets written")


def rows() -> tuple:
    """Every row: OPS, then BACKWARD_OPS and NODE_OPS."""
    return (*OPS.values(), *BACKWARD_OPS.values(), *NODE_OPS.values())


def notes() -> dict:
    """{node name: the row's note}, with AccumulateGrad's; ``torch::autograd::`` names also under
    their last part (``CopySlices``)."""
    out = {"torch::autograd::AccumulateGrad": ACCUMULATE_GRAD_NOTE}
    for op in rows():
        if op.node_name and op.note:
            out.setdefault(op.node_name, op.note)
    for name in [n for n in out if n.startswith("torch::autograd::")]:
        out.setdefault(name.rsplit(":", 1)[-1], out[name])
    return out


def palette_groups() -> dict:
    """{palette id: group} from the rows' ``group`` (a row's own name unless it gives a dict)."""
    out = {}
    for op in rows():
        g = op.group
        if g is not None:
            out.update(g if isinstance(g, dict) else {op.name: g})
    return out


def spellings(prefix: str) -> dict:
    """{public name: the rows spelled so} for one prefix (``"torch."``, ``"Tensor."``, ``"F."``,
    ``"torch.linalg."``): the names directly under it (``torch.linalg.cholesky`` is not one of
    ``"torch."``'s)."""
    out: dict = {}
    for op in rows():
        for s in op.api:
            if s.startswith(prefix) and "." not in s[len(prefix):]:
                out.setdefault(s[len(prefix):], []).append(op)
    return out
