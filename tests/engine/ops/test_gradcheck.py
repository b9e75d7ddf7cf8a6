"""Every row of the op table against central finite differences, in float64, on shapes drawn by
hypothesis (broadcasting ones for elementwise rows).

The rows are taken from ``engine.ops.table.OPS`` itself: a new row without an input recipe
below fails ``test_every_row_has_a_recipe``, so no row goes unchecked. Rows that are not
differentiable on purpose (``vjps`` None) are listed in ``NOT_DIFFERENTIABLE`` and checked to
produce outputs that never require grad.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine
from engine.ops import api
from engine.ops.dispatch import apply
from engine.ops.table import OPS, variadic_rules

EPS = 1e-6

small_shape = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
matrix_side = st.integers(1, 4)


def values(rng, shape, kind="r"):
    a = rng.standard_normal(shape)
    if kind == "p":  # positive, away from 0
        a = np.abs(a) + 0.5
    elif kind == "n":  # away from 0, either sign
        a = np.sign(a + 1e-12) * (np.abs(a) + 0.5)
    elif kind == "k":  # away from the kinks of abs/relu/clamp/max at 0 and +-0.5
        a = np.sign(a + 1e-12) * (np.abs(a) + 0.05)
        a = np.where(np.abs(np.abs(a) - 0.5) < 0.05, a + 0.1, a)
    return np.asarray(a, dtype=np.float64)


def elementwise(*kinds, **params):
    """Tensor arguments of mutually broadcastable shapes."""

    def make(draw, rng):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=len(kinds), max_dims=3,
                                                        max_side=3)).input_shapes
        return [values(rng, s, k) for s, k in zip(shapes, kinds)], params, None

    return make


def one(kind="r", shape=small_shape, **params):
    def make(draw, rng):
        return [values(rng, draw(shape), kind)], params, None

    return make


def with_dims(name, keepdim=None, extra=None):
    """A reduction over a drawn (possibly negative-normalised) dimension."""

    def make(draw, rng):
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
        dim = draw(st.integers(0, len(shape) - 1))
        params = {"dim": dim}
        if keepdim is not None:
            params["keepdim"] = draw(st.booleans())
        if extra:
            params.update(extra(shape, dim))
        return [values(rng, shape, "k")], params, None

    return make


def matrices(make_shapes):
    def make(draw, rng):
        n, k, m, b = (draw(matrix_side) for _ in range(4))
        return [values(rng, s) for s in make_shapes(n, k, m, b)], {}, None

    return make


def custom(fn):
    def make(draw, rng):
        return fn(draw, rng)

    return make


def _squeezable(draw, rng):
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=4)))
    return shape, values(rng, shape)


def _view_like(node):
    def fn(draw, rng):
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
        x = values(rng, shape)
        target = (int(np.prod(shape)),) if draw(st.booleans()) else tuple(reversed(shape))
        return [x], {"shape": target, "src_shape": shape}, None
    return fn


def _permute(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dims = tuple(draw(st.permutations(range(len(shape)))))
    return [values(rng, shape)], {"dims": dims}, None


def _transpose(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    d0, d1 = (draw(st.integers(0, len(shape) - 1)) for _ in range(2))
    return [values(rng, shape)], {"dim0": d0, "dim1": d1}, None


def _squeeze(draw, rng):
    shape, x = _squeezable(draw, rng)
    return [x], {"src_shape": shape}, None


def _squeeze_dim(draw, rng):
    shape, x = _squeezable(draw, rng)
    return [x], {"dim": draw(st.integers(0, len(shape) - 1)), "src_shape": shape}, None


def _squeeze_dims(draw, rng):
    shape, x = _squeezable(draw, rng)
    dims = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return [x], {"dims": dims, "src_shape": shape}, None


def _squeeze_dim4(draw, rng):
    n = draw(matrix_side)
    return [values(rng, (1, n))], {"dim": 0, "src_shape": (1, n)}, None


def _unsqueeze(draw, rng):
    shape = draw(small_shape)
    return [values(rng, shape)], {"dim": draw(st.integers(0, len(shape)))}, None


def _expand(draw, rng):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
    return [values(rng, shapes.input_shapes[0])], {"shape": shapes.result_shape}, None


def _select(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(0, len(shape) - 1))
    index = draw(st.integers(0, shape[dim] - 1))
    return [values(rng, shape)], {"dim": dim, "index": index, "src_shape": shape}, None


def _slice(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    dim = draw(st.integers(0, len(shape) - 1))
    start = draw(st.integers(0, shape[dim] - 1))
    step = draw(st.integers(1, 2))
    index = (slice(None),) * dim + (slice(start, shape[dim], step),)
    return [values(rng, shape)], {"index": index, "src_shape": shape}, None


def _index(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    picks = np.array(draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=5)))
    return [values(rng, shape)], {"index": (picks,), "src_shape": shape}, None


def _matmul_general(draw, rng):
    b, n, k, m = (draw(matrix_side) for _ in range(4))
    return [values(rng, (b, n, k)), values(rng, (b, k, m))], {}, None


def _addmm(draw, rng):
    n, k, m = (draw(matrix_side) for _ in range(3))
    c_shape = draw(st.sampled_from([(n, m), (m,), (1, m), ()]))
    return [values(rng, c_shape), values(rng, (n, k)), values(rng, (k, m))], {}, None


def _where(draw, rng):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    cond_shape, x_shape, y_shape = shapes.input_shapes
    cond = rng.standard_normal(cond_shape) > 0
    return [cond, values(rng, x_shape), values(rng, y_shape)], {}, None


def _variadic(name):
    def fn(draw, rng):
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
        n = draw(st.integers(1, 3))
        dim = draw(st.integers(0, len(shape) - 1 + (name == "stack")))
        arrays = []
        for _ in range(n):
            s = list(shape)
            if name == "cat":
                s[dim] = draw(st.integers(1, 3))
            arrays.append(values(rng, tuple(s)))
        call = (lambda ts: api.cat(ts, dim)) if name == "cat" else (lambda ts: api.stack(ts, dim))
        return arrays, {}, call
    return fn


def _assign(op_name):
    """copy_slices / index_put: their forward is ``x[index] = y`` done by the in-place module."""

    def fn(draw, rng):
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=2, max_side=4))
        if op_name == "index_put":
            index = np.array(sorted(set(draw(st.lists(st.integers(0, shape[0] - 1), min_size=1,
                                                       max_size=3)))))
        else:
            index = slice(draw(st.integers(0, shape[0] - 1)), shape[0])
        value_shape = np.empty(shape)[index].shape[draw(st.integers(0, 1)):]

        def call(ts):
            x, y = ts
            target = x * 1.0  # a non-leaf, so the write records a node
            target[index] = y
            if engine.is_grad_enabled():
                assert target.grad_fn.name().endswith(
                    "CopySlices" if op_name == "copy_slices" else "IndexPutBackward0")
            return target

        return [values(rng, shape), values(rng, value_shape)], {}, call
    return fn


def _inplace(op_name, *kinds, **params):
    """Rows used only by in-place methods (zero_, fill_, copy_): run through the method."""

    def fn(draw, rng):
        shape = draw(small_shape)
        arrays = [values(rng, shape, k) for k in kinds]

        def call(ts):
            target = ts[0] * 1.0
            if op_name == "zero":
                return target.zero_()
            if op_name == "fill":
                return target.fill_(params["value"])
            return target.copy_(ts[1])

        return arrays, {}, call
    return fn


def _with_shape_param(draw, rng):
    shape = draw(small_shape)
    return [values(rng, shape)], {"shape": shape}, None


def _to_dtype(draw, rng):
    return [values(rng, draw(small_shape))], {"dtype": np.dtype(np.float64)}, None


RECIPES = {
    "add": elementwise("r", "r"),
    "sub": elementwise("r", "r"),
    "rsub": custom(lambda d, rng: ([values(rng, d(small_shape)), 1.5], {}, None)),
    "mul": elementwise("r", "r"),
    "div": elementwise("r", "n"),
    "neg": one(),
    "pow": custom(lambda d, rng: ([values(rng, d(small_shape), "p")],
                                  {"exponent": d(st.sampled_from([2, 3, 0.5, -1.5, 0]))}, None)),
    "pow_tensor": elementwise("p", "r"),
    "rpow": custom(lambda d, rng: ([values(rng, d(small_shape))],
                                   {"base": d(st.sampled_from([2.0, 0.5, 3.0]))}, None)),
    "abs": one("k"),
    "exp": one(),
    "log": one("p"),
    "sqrt": one("p"),
    "sin": one(),
    "cos": one(),
    "tanh": one(),
    "sigmoid": one(),
    "relu": one("k"),
    "clamp": custom(lambda d, rng: ([values(rng, d(small_shape), "k")],
                                    d(st.sampled_from([{"min": -0.5, "max": 0.5}, {"min": -0.5},
                                                       {"max": 0.5}])), None)),
    "maximum": elementwise("r", "r"),
    "minimum": elementwise("r", "r"),
    "where": custom(_where),
    "sum": custom(lambda d, rng: _with_shape_param(d, rng)),
    "sum_dim": with_dims("sum_dim", keepdim=True, extra=lambda s, dim: {"shape": s}),
    "mean": custom(lambda d, rng: _with_shape_param(d, rng)),
    "mean_dim": with_dims("mean_dim", keepdim=True, extra=lambda s, dim: {"shape": s}),
    "max": one(),
    "min": one(),
    "max_dim": with_dims("max_dim", keepdim=True),
    "min_dim": with_dims("min_dim", keepdim=True),
    "softmax": with_dims("softmax"),
    "log_softmax": with_dims("log_softmax"),
    "mm": matrices(lambda n, k, m, b: [(n, k), (k, m)]),
    "mv": matrices(lambda n, k, m, b: [(n, k), (k,)]),
    "dot": matrices(lambda n, k, m, b: [(k,), (k,)]),
    "bmm": custom(_matmul_general),
    "addmm": custom(_addmm),
    "view": custom(_view_like("view")),
    "reshape_copy": custom(_view_like("reshape_copy")),
    "reshape_alias": custom(_view_like("reshape_alias")),
    "alias": one(),
    "transpose": custom(_transpose),
    "t": custom(lambda d, rng: ([values(rng, d(hnp.array_shapes(max_dims=2, max_side=3)))],
                                {}, None)),
    "permute": custom(_permute),
    "squeeze": custom(_squeeze),
    "squeeze_dim": custom(_squeeze_dim),
    "squeeze_dims": custom(_squeeze_dims),
    "squeeze_dim4": custom(_squeeze_dim4),
    "unsqueeze": custom(_unsqueeze),
    "expand": custom(_expand),
    "select": custom(_select),
    "slice": custom(_slice),
    "index": custom(_index),
    "clone": one(),
    "to_dtype": custom(_to_dtype),
    "cat": custom(_variadic("cat")),
    "stack": custom(_variadic("stack")),
    "reciprocal": one("n"),
    "zero": custom(_inplace("zero", "r")),
    "fill": custom(_inplace("fill", "r", value=2.5)),
    "copy": custom(_inplace("copy", "r", "r")),
    "copy_slices": custom(_assign("copy_slices")),
    "index_put": custom(_assign("index_put")),
}

# -- the fused loss rows of nn ---------------------------------------------------------------------
reductions = st.sampled_from(["none", "mean", "sum"])


def _mse(draw, rng):
    shape = draw(small_shape)
    return [values(rng, shape), values(rng, shape)], {"reduction": draw(reductions)}, None


def _nll(spatial):
    def fn(draw, rng):
        n, c = draw(matrix_side), draw(st.integers(2, 4))
        extra = (draw(matrix_side), draw(matrix_side)) if spatial else ()
        x = values(rng, (n, c) + extra)
        target = rng.integers(0, c, size=(n,) + extra)
        weight = rng.uniform(0.5, 2.0, size=c) if draw(st.booleans()) else None
        params = {"target": target, "weight": weight, "reduction": draw(reductions),
                  "ignore_index": int(target.reshape(-1)[0]) if draw(st.booleans()) else -100}
        if params["reduction"] == "mean" and params["ignore_index"] != -100 and np.all(
                target == params["ignore_index"]):
            params["ignore_index"] = -100  # an all-ignored mean is 0/0
        return [x], params, None
    return fn


def _bce(draw, rng):
    shape = draw(small_shape)
    x = rng.uniform(0.05, 0.95, size=shape)
    y = rng.uniform(0.0, 1.0, size=shape)
    weight = rng.uniform(0.5, 2.0, size=shape) if draw(st.booleans()) else None
    return [x, y], {"weight": weight, "reduction": draw(reductions)}, None


def _bce_logits(draw, rng):
    shape = draw(small_shape)
    x, y = values(rng, shape), rng.uniform(0.0, 1.0, size=shape)
    pos_weight = rng.uniform(0.5, 2.0, size=shape[-1:]) if draw(st.booleans()) else None
    return [x, y], {"weight": None, "pos_weight": pos_weight, "reduction": draw(reductions)}, None


def _as_strided(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    size = int(np.prod(shape))
    k = draw(st.integers(1, size))
    positions = rng.permutation(size)[:k].reshape(draw(st.sampled_from([(k,), (1, k)])))
    return [values(rng, shape)], {"positions": positions, "base_shape": shape}, None


def _reduce_dims(name):
    def fn(draw, rng):
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
        dims = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
        return [values(rng, shape)], {"dim": dims, "keepdim": draw(st.booleans())}, None
    return fn


def _vector_norm(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.one_of(st.none(), st.sets(st.integers(0, len(shape) - 1), min_size=1).map(
        lambda d: tuple(sorted(d)))))
    params = {"ord": draw(st.sampled_from([1, 2, 3, 1.5])), "dim": dim,
              "keepdim": draw(st.booleans())}
    return [values(rng, shape, "k")], params, None


def _clamp_tensor(draw, rng):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    x, lo, hi = (values(rng, s) for s in shapes.input_shapes)
    lo, hi = np.minimum(lo, hi) - 0.05, np.maximum(lo, hi) + 0.05
    if draw(st.booleans()):
        return [x, lo, np.inf], {}, None
    return [x, lo, hi], {}, None


RECIPES.update({
    "as_strided": custom(_as_strided),
    "sign": one("k"),
    "floor": one("k"),
    "ceil": one("k"),
    "round": one("k"),
    "trunc": one("k"),
    "remainder": custom(lambda d, rng: ([values(rng, d(small_shape)), 0.7], {}, None)),
    "remainder_tensor": elementwise("r", "p"),
    "fmod": custom(lambda d, rng: ([values(rng, d(small_shape)), 0.7], {}, None)),
    "fmod_tensor": elementwise("r", "n"),
    "rsub_tensor": elementwise("r", "r"),
    "clamp_tensor": custom(_clamp_tensor),
    "vector_norm": custom(_vector_norm),
    "amax": custom(_reduce_dims("amax")),
    "amin": custom(_reduce_dims("amin")),
    "mse_loss": custom(_mse),
    "nll_loss": custom(_nll(spatial=False)),
    "nll_loss2d": custom(_nll(spatial=True)),
    "binary_cross_entropy": custom(_bce),
    "binary_cross_entropy_with_logits": custom(_bce_logits),
    "div_scalar": one("r", other=2.5),
    "mul_scalar": one("r", other=-1.5),
    "add_scalar": one("r", other=0.25),
    "sub_scalar": one("r", other=0.25),
    "norm_dim": custom(_vector_norm),
    "masked_fill": custom(lambda d, rng: (lambda s: (
        [values(rng, s)], {"mask": rng.standard_normal(s) > 0, "value": 0.0}, None))(
            d(small_shape))),
})

# -- the ops added for learners: log1p ... silu --------------------------------------------------


def _maybe_zeros(draw, rng, shape):
    """Values away from 0, with one or two exact zeros sometimes (prod's other backward path)."""
    x = values(rng, shape, "n")
    if x.size and draw(st.booleans()):
        flat = x.reshape(-1)
        flat[rng.integers(0, x.size, size=draw(st.integers(1, 2)))] = 0.0
    return x


def _prod(draw, rng):
    return [_maybe_zeros(draw, rng, draw(small_shape))], {}, None


def _prod_dim(draw, rng):
    shape = draw(small_shape)
    params = {"dim": draw(st.integers(0, len(shape) - 1)) if shape else None,
              "keepdim": draw(st.booleans())}
    return [_maybe_zeros(draw, rng, shape)], params, None


def _var_std(draw, rng):
    shape = draw(small_shape)
    if shape and draw(st.booleans()):
        # not the empty dim list: PyTorch's backward counts it as N = 1 while its forward reduces
        # everything (test_reductions_and_activations.py compares that with PyTorch instead)
        dim = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    else:
        dim = None
    n = int(np.prod(shape if dim is None else [shape[d] for d in dim]))
    correction = draw(st.sampled_from([c for c in (0, 0.5, 1) if c < n] or [0]))
    return [values(rng, shape)], {"dim": dim, "correction": correction,
                                  "keepdim": draw(st.booleans())}, None


def _cumsum(draw, rng):
    shape = draw(small_shape)
    dim = draw(st.integers(0, len(shape) - 1)) if shape else 0
    return [values(rng, shape)], {"dim": dim}, None


def _activation_inplace(fn, **params):
    def recipe(draw, rng):
        p = {k: draw(v) for k, v in params.items()}

        def call(ts):
            return fn(ts[0] * 1.0, **p)

        return [values(rng, draw(small_shape), "k")], {}, call
    return recipe


def _with_params(kind="r", **strategies):
    def recipe(draw, rng):
        return [values(rng, draw(small_shape), kind)], {
            k: draw(v) for k, v in strategies.items()}, None
    return recipe


RECIPES.update({
    "log1p": one("p"),
    "expm1": one(),
    "prod": custom(_prod),
    "prod_dim": custom(_prod_dim),
    "var": custom(_var_std),
    "std": custom(_var_std),
    "cumsum": custom(_cumsum),
    "leaky_relu": custom(_with_params("k", negative_slope=st.sampled_from([0.01, 0.2, -1.5]))),
    "leaky_relu_": custom(_activation_inplace(
        lambda x, **p: engine.nn.functional.leaky_relu(x, inplace=True, **p),
        negative_slope=st.sampled_from([0.01, 0.3]))),
    "gelu": custom(_with_params(approximate=st.sampled_from(["none", "tanh"]))),
    "softplus": custom(_with_params(beta=st.sampled_from([1.0, 2.0, 0.5]),
                                    threshold=st.sampled_from([20.0, 1.0]))),
    "elu": custom(_with_params("k", alpha=st.sampled_from([1.0, 0.5, 2.0]))),
    "elu_": custom(_activation_inplace(
        lambda x, **p: engine.nn.functional.elu(x, inplace=True, **p),
        alpha=st.sampled_from([1.0, 0.5]))),
    "silu": one(),
})

# -- issue 14: more of the tensor API -------------------------------------------------------------


def _inside_one(draw, rng):
    """Values in (-0.9, 0.9): asin/acos's domain, away from its ends."""
    return [np.asarray(np.tanh(values(rng, draw(small_shape))) * 0.9)], {}, None


RECIPES.update({
    "log10": one("p"),
    "log2": one("p"),
    "asin": custom(_inside_one),
    "acos": custom(_inside_one),
    "atan": one(),
    "sinh": one(),
    "cosh": one(),
    "atan2": elementwise("n", "n"),
    "tril": custom(lambda d, rng: ([values(rng, d(hnp.array_shapes(min_dims=2, max_dims=3)))],
                                   {"diagonal": d(st.integers(-2, 2))}, None)),
    "triu": custom(lambda d, rng: ([values(rng, d(hnp.array_shapes(min_dims=2, max_dims=3)))],
                                   {"diagonal": d(st.integers(-2, 2))}, None)),
    "masked_fill_tensor": custom(lambda d, rng: (lambda s: (
        [values(rng, s), values(rng, ())], {"mask": rng.standard_normal(s) > 0}, None))(
            d(small_shape))),
    "gather": custom(lambda d, rng: _along_recipe(d, rng, "gather")),
    "scatter": custom(lambda d, rng: _along_recipe(d, rng, "scatter")),
    "scatter_value": custom(lambda d, rng: _along_recipe(d, rng, "scatter_value")),
    "scatter_add": custom(lambda d, rng: _along_recipe(d, rng, "scatter_add")),
    "index_select": custom(lambda d, rng: _index_dim_recipe(d, rng, "index_select")),
    "index_copy": custom(lambda d, rng: _index_dim_recipe(d, rng, "index_copy")),
    "flip": custom(lambda d, rng: (lambda s: ([values(rng, s)], {"dims": tuple(sorted(d(
        st.sets(st.integers(0, len(s) - 1))))) if s else ()}, None))(d(small_shape))),
    "repeat": custom(lambda d, rng: (lambda s: ([values(rng, s)], {"repeats": tuple(
        d(st.integers(1, 3)) for _ in range(len(s) + d(st.integers(0, 1)))), "shape": s},
        None))(d(small_shape))),
    "trace": custom(lambda d, rng: (lambda s: ([values(rng, s)], {"shape": s}, None))(
        d(hnp.array_shapes(min_dims=2, max_dims=2, max_side=4)))),
})


def _along_recipe(draw, rng, name):
    """gather/scatter: an index no larger than x, values along a drawn dim (distinct for scatter,
    whose duplicates are order-dependent)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(1, n)) for n in shape)
    if name == "gather":
        index = rng.integers(0, shape[dim], size=ishape)
    else:
        ishape = ishape[:dim] + (draw(st.integers(1, shape[dim])),) + ishape[dim + 1:]
        index = np.argsort(rng.standard_normal(ishape[:dim] + (shape[dim],) + ishape[dim + 1:]),
                           axis=dim)
        index = np.take(index, np.arange(ishape[dim]), axis=dim)
    x = values(rng, shape)
    if name == "gather":
        return [x], {"dim": dim, "index": index, "shape": shape}, None
    if name == "scatter_value":
        return [x], {"dim": dim, "index": index, "value": 1.5}, None
    return [x, values(rng, ishape)], {"dim": dim, "index": index, "src_shape": ishape}, None


def _index_dim_recipe(draw, rng, name):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(0, len(shape) - 1))
    if name == "index_select":
        index = rng.integers(0, shape[dim], size=draw(st.integers(1, 4)))
        return [values(rng, shape)], {"dim": dim, "index": index, "shape": shape}, None
    index = rng.permutation(shape[dim])[:draw(st.integers(1, shape[dim]))]
    src = shape[:dim] + (len(index),) + shape[dim + 1:]
    return [values(rng, shape), values(rng, src)], {"dim": dim, "index": index}, None

NOT_DIFFERENTIABLE = {
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "isnan",
    "isinf", "isfinite", "argmax", "argmin", "all", "any", "argsort", "one_hot",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "bitwise_not", "count_nonzero", "nonzero", "signbit", "isneginf",
    "isposinf", "isreal", "bincount", "histc", "unique", "searchsorted",
}


# -- layers (engine/ops/layers.py): small shapes, every option drawn ----------------------------


def _conv(draw, rng):
    nd = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from([1, 2]))
    c, o = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    size = tuple(d * (kk - 1) + 1 + draw(st.integers(0, 2)) for d, kk in zip(dilation, k))
    x = values(rng, (draw(st.integers(1, 2)), c) + size)
    w = values(rng, (o, c // groups) + k)
    b = values(rng, (o,)) if draw(st.booleans()) else None
    return [x, w, b], {"stride": stride, "padding": padding, "dilation": dilation,
                       "groups": groups}, None


def _conv_transpose(draw, rng):
    nd = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from([1, 2]))
    c, o = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    size = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    # output_padding below max(stride, dilation); padding only where the output stays non-empty
    output_padding = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    padding = tuple(p if (n - 1) * s - 2 * p + d * (kk - 1) + op + 1 > 0 else 0
                    for p, n, s, d, kk, op in zip(
                        (draw(st.integers(0, 1)) for _ in range(nd)), size, stride, dilation, k,
                        output_padding))
    x = values(rng, (draw(st.integers(1, 2)), c) + size)
    w = values(rng, (c, o // groups) + k)
    b = values(rng, (o,)) if draw(st.booleans()) else None
    return [x, w, b], {"stride": stride, "padding": padding, "output_padding": output_padding,
                       "dilation": dilation, "groups": groups}, None


def _smooth_loss(param):
    def fn(draw, rng):
        shape = draw(small_shape)
        return [values(rng, shape), values(rng, shape)], {
            "reduction": draw(reductions), param: draw(st.sampled_from([0.5, 1.0, 2.0]))}, None

    return fn


def _pool(draw, rng, dilated=True):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if dilated else (1, 1)
    padding = tuple(draw(st.integers(0, ((kk - 1) * d + 1) // 2)) for kk, d in zip(k, dilation))
    size = tuple(d * (kk - 1) + 1 + draw(st.integers(0, 3)) for kk, d in zip(k, dilation))
    shape = ((draw(st.integers(1, 2)),) if draw(st.booleans()) else ()) + (2,) + size
    params = {"kernel": k, "stride": stride, "padding": padding,
              "ceil_mode": draw(st.booleans())}
    return values(rng, shape), params, dilation


def _max_pool(draw, rng):
    x, params, dilation = _pool(draw, rng)
    return [x], {**params, "dilation": dilation}, None


def _avg_pool(draw, rng):
    x, params, _ = _pool(draw, rng, dilated=False)
    return [x], {**params, "count_include_pad": draw(st.booleans()),
                 "divisor_override": draw(st.sampled_from([None, 3]))}, None


def _batch_norm(draw, rng):
    shape = (draw(st.integers(2, 3)), draw(st.integers(1, 3))) + tuple(
        draw(st.lists(st.integers(1, 2), max_size=2)))
    c = shape[1]
    training = draw(st.booleans())
    affine = draw(st.booleans())
    w, b = (values(rng, (c,)), values(rng, (c,))) if affine else (None, None)
    running = (None, None) if training else (values(rng, (c,)), values(rng, (c,), "p"))
    return [values(rng, shape), w, b], {
        "running_mean": running[0], "running_var": running[1], "training": training,
        "momentum": 0.1, "eps": 1e-5}, None


def _layer_norm(draw, rng):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    k = draw(st.integers(1, len(shape)))
    normalized = shape[len(shape) - k:]
    if int(np.prod(normalized)) == 1:
        normalized, shape = (2,), shape + (2,)
    affine = draw(st.booleans())
    w, b = (values(rng, normalized), values(rng, normalized)) if affine else (None, None)
    return [values(rng, shape), w, b], {"normalized_shape": normalized, "eps": 1e-5}, None


def _embedding(draw, rng):
    n = draw(st.integers(1, 4))
    idx = rng.integers(0, n, size=tuple(draw(st.lists(st.integers(1, 3), max_size=2))))
    return [values(rng, (n, draw(st.integers(1, 3))))], {
        # padding_idx's zero row is by definition, not a derivative: compared with PyTorch in
        # tests/engine/nn/test_layers.py instead
        "indices": idx, "padding_idx": -1, "num_weights": n}, None


def _constant_pad(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=3))
    pad = tuple(draw(st.integers(-1, 2)) for _ in range(2 * draw(st.integers(1, len(shape)))))
    return [values(rng, shape)], {"pad": pad, "value": 0.5}, None


RECIPES.update({
    "convolution": custom(_conv),
    "convolution_transpose": custom(_conv_transpose),
    "smooth_l1_loss": custom(_smooth_loss("beta")),
    "huber_loss": custom(_smooth_loss("delta")),
    "constant_pad_nd": custom(_constant_pad),
    "max_pool2d": custom(_max_pool),
    "avg_pool2d": custom(_avg_pool),
    "adaptive_avg_pool2d": custom(lambda d, rng: (
        [values(rng, (2, d(st.integers(1, 5)), d(st.integers(1, 5))))],
        {"output_size": (d(st.integers(1, 4)), d(st.integers(1, 4)))}, None)),
    "native_batch_norm": custom(_batch_norm),
    "native_layer_norm": custom(_layer_norm),
    "embedding": custom(_embedding),
})


# PyTorch records these but its backward raises "derivative for aten::... is not implemented"
NOT_IMPLEMENTED = {"floor_divide", "floor_divide_tensor", "heaviside"}


@pytest.mark.parametrize("name", sorted(NOT_IMPLEMENTED))
def test_rows_without_a_derivative_raise_pytorchs_error(name):
    x = engine.tensor([0.5, -1.5, 2.0], requires_grad=True)
    out = apply(OPS[name], x, 0.7) if name == "floor_divide" else apply(OPS[name], x, x + 3)
    assert out.requires_grad
    aten = "heaviside" if name == "heaviside" else "floor_divide"
    with pytest.raises(RuntimeError, match=f"derivative for aten::{aten} is not implemented"):
        out.sum().backward()


def _differentiable(name) -> bool:
    try:
        variadic_rules(name, 1)  # cat, stack: rules made per call, one per input
        return True
    except KeyError:
        return OPS[name].vjps is not None


def test_every_row_has_a_recipe():
    differentiable = ({name for name in OPS if _differentiable(name)} - NOT_IMPLEMENTED
                      - CHECKED_AGAINST_TORCH)
    assert differentiable - set(RECIPES) == set(), "rows without a gradient check"
    assert {name for name in OPS if not _differentiable(name)} == NOT_DIFFERENTIABLE
    assert set(RECIPES) - differentiable == set(), "recipes for rows that no longer exist"


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE))
def test_not_differentiable_rows_record_nothing(name):
    x = engine.tensor([0.5, -1.5, 2.0], requires_grad=True)
    unary = {"logical_not", "isnan", "isinf", "isfinite", "argmax", "argmin", "all", "any",
             "argsort", "bitwise_not", "count_nonzero", "nonzero", "signbit", "isneginf",
             "isposinf", "isreal", "unique"}
    params = {"histc": {"bins": 3, "min": -2.0, "max": 2.0}}.get(name, {})
    if name == "one_hot" or name == "bincount":
        x, unary = engine.tensor([0, 2]), {name}
    if name.startswith("bitwise_"):  # integer and bool tensors only
        x = engine.tensor([1, 2, 3])
    args = (x,) if name in unary or name == "histc" else (x, x)
    out = apply(OPS[name], *args, **params)
    assert not out.requires_grad and out.grad_fn is None


def _run(name, arrays, params, call, grad_enabled=True):
    tensors = [engine.tensor(a, requires_grad=isinstance(a, np.ndarray) and a.dtype.kind == "f")
               if isinstance(a, np.ndarray) else a for a in arrays]
    with engine.set_grad_enabled(grad_enabled):
        out = call(tensors) if call else apply(OPS[name], *tensors, **params)
    return tensors, out


def _numeric_grad(name, arrays, params, call, i, g):
    x = arrays[i]
    grad = np.zeros_like(x)
    flat = grad.reshape(-1)
    for k in range(x.size):
        shifted = []
        for sign in (1, -1):
            a = [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in arrays]
            a[i].reshape(-1)[k] += sign * EPS
            _, out = _run(name, a, params, call, grad_enabled=False)
            shifted.append(float(np.sum(g * out.detach().numpy())))
        flat[k] = (shifted[0] - shifted[1]) / (2 * EPS)
    return grad


# -- issue 14: sorting, selection along a dim, roll, diag, in-place views ----------------------

def _sorted_along(draw, rng, name):
    """topk/sort/kthvalue/median along a drawn dim: distinct values, the indices as the API
    finds them (fixed while the inputs are perturbed: the pick is locally linear)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(0, len(shape) - 1))
    x = values(rng, shape)
    order = np.argsort(x, axis=dim)
    n = shape[dim]
    if name in ("topk", "sort"):
        k = n if name == "sort" else draw(st.integers(1, n))
        idx = np.take(order, np.arange(k), axis=dim)
        return [x], {"dim": dim, "indices": idx, "shape": shape}, None
    idx = np.take(order, [draw(st.integers(0, n - 1))], axis=dim)
    return [x], {"dim": dim, "indices": idx, "keepdim": draw(st.booleans()), "shape": shape}, None


def _roll_recipe(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    if draw(st.booleans()):
        return [values(rng, shape)], {"shifts": (draw(st.integers(-4, 4)),), "dims": ()}, None
    dims = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    shifts = tuple(draw(st.integers(-3, 3)) for _ in dims)
    return [values(rng, shape)], {"shifts": shifts, "dims": dims}, None


def _matrix_diagonal(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=2, max_side=4))
    return [values(rng, shape)], {"diagonal": draw(st.integers(-2, 2)), "shape": shape}, None


RECIPES.update({
    "topk": custom(lambda d, rng: _sorted_along(d, rng, "topk")),
    "sort": custom(lambda d, rng: _sorted_along(d, rng, "sort")),
    "kthvalue": custom(lambda d, rng: _sorted_along(d, rng, "kthvalue")),
    "median_dim": custom(lambda d, rng: _sorted_along(d, rng, "median_dim")),
    "median": one(),
    "roll": custom(_roll_recipe),
    "diag_embed": custom(lambda d, rng: ([values(rng, (d(matrix_side),))],
                                         {"diagonal": d(st.integers(-2, 2))}, None)),
    "diagonal_copy": custom(_matrix_diagonal),
    "unsqueeze_": custom(_unsqueeze),
    "squeeze_": custom(_squeeze),
    "t_": custom(lambda d, rng: ([values(rng, d(hnp.array_shapes(max_dims=2, max_side=3)))],
                                 {}, None)),
    "transpose_": custom(_transpose),
})


# -- issue 14: the ops tutorials use that the corpus missed --------------------------------------

def _diagonal_recipe(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3))
    dim1, dim2 = draw(st.permutations(range(len(shape))))[:2]
    return [values(rng, shape)], {"offset": draw(st.integers(-2, 2)), "dim1": dim1,
                                  "dim2": dim2, "shape": shape}, None


RECIPES.update({
    "diagonal": custom(_diagonal_recipe),
})


def shifted(kind="r", scale=1.0, shift=0.0, **params):
    """One array of a drawn shape, scaled and shifted into an op's domain."""
    def make(draw, rng):
        return [np.asarray(values(rng, draw(small_shape), kind) * scale + shift)], params, None

    return make


def calling(fn, *kinds, shape=None):
    """Arrays of one drawn shape (or ``shape(draw)``), the row reached through its public
    function ``fn(engine, draw, *tensors)``."""
    def make(draw, rng):
        s = shape(draw) if shape else draw(small_shape)
        return [values(rng, s, k) for k in kinds], {}, lambda ts: fn(engine, draw, *ts)

    return make


def _drawn_dim(draw, shape):
    return draw(st.integers(0, len(shape) - 1))


_DIMMED = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


def along(fn, kind="r"):
    """A scan or reduction along a drawn dim, keepdim drawn too: ``fn(engine, x, dim, keep)``."""
    def make(draw, rng):
        shape = draw(_DIMMED)
        dim, keep = _drawn_dim(draw, shape), draw(st.booleans())
        return [values(rng, shape, kind)], {}, lambda ts: fn(engine, ts[0], dim, keep)

    return make


def _rot90(draw, rng):
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3))
    d0, d1 = draw(st.permutations(range(len(shape))))[:2]
    k = draw(st.integers(-3, 4))
    return [values(rng, shape)], {}, lambda ts: engine.rot90(ts[0], k, [d0, d1])


def _pairs_of_rows(draw, rng):
    n, m, d = (draw(st.integers(1, 3)) for _ in range(3))
    p = draw(st.sampled_from([1.0, 2.0, 3.0]))
    return [values(rng, (n, d)), values(rng, (m, d))], {}, lambda ts: engine.cdist(*ts, p=p)


def _index_add(draw, rng):
    shape = draw(_DIMMED)
    dim = _drawn_dim(draw, shape)
    index = rng.integers(0, shape[dim], size=draw(st.integers(1, 3)))
    src = shape[:dim] + (len(index),) + shape[dim + 1:]
    return [values(rng, shape), values(rng, src)], {}, lambda ts: engine.index_add(
        ts[0], dim, engine.tensor(index), ts[1], alpha=2.0)


def _index_fill(draw, rng):
    shape = draw(_DIMMED)
    dim = _drawn_dim(draw, shape)
    index = engine.tensor(rng.integers(0, shape[dim], size=draw(st.integers(1, 3))))
    return [values(rng, shape)], {}, lambda ts: ts[0].index_fill(dim, index, 1.5)


def _block_diag(draw, rng):
    shapes = [draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
              for _ in range(draw(st.integers(1, 3)))]
    return [values(rng, s) for s in shapes], {}, lambda ts: engine.block_diag(*ts)


def _dist(draw, rng):
    shape = draw(small_shape)
    p = draw(st.sampled_from([1.0, 2.0, 3.0]))
    return [values(rng, shape, "n"), values(rng, shape)], {}, lambda ts: engine.dist(*ts, p)


def _cross(draw, rng):
    shape = (draw(st.integers(1, 3)), 3)
    return [values(rng, shape), values(rng, shape)], {}, lambda ts: engine.cross(*ts, dim=1)


RECIPES.update({
    "tan": shifted(scale=0.3),
    "asinh": one(),
    "acosh": shifted("p", shift=1.0),
    "atanh": shifted(scale=0.3),
    "rsqrt": one("p"),
    "exp2": one(),
    "erf": one(),
    "erfc": one(),
    "erfinv": shifted(scale=0.3),
    "deg2rad": one(),
    "rad2deg": one(),
    "sinc": one("n"),
    "frac": one(),
    "sgn": one("k"),
    "logit": custom(lambda d, rng: ([rng.uniform(0.1, 0.9, d(small_shape))], {}, None)),
    "nan_to_num": one(nan=0.0, posinf=1.0, neginf=-1.0),
    "hypot": elementwise("n", "n"),
    "logaddexp": elementwise("r", "r"),
    "logaddexp2": elementwise("r", "r"),
    "xlogy": elementwise("r", "p"),
    "fmax": elementwise("r", "r"),
    "fmin": elementwise("r", "r"),
    "copysign": elementwise("n", "n"),
    "copysign_scalar": calling(lambda e, d, a: e.copysign(a, -1.5), "n"),
    "lerp": calling(lambda e, d, a, b: e.lerp(a, b, 0.3), "r", "r"),
    "lerp_tensor": calling(lambda e, d, a, b, w: e.lerp(a, b, w), "r", "r", "r"),
    "clamp_min": calling(lambda e, d, a: e.clamp_min(a, 0.5), "k"),
    "clamp_max": calling(lambda e, d, a: e.clamp_max(a, -0.5), "k"),
    "addcmul": calling(lambda e, d, a, b, c: e.addcmul(a, b, c, value=0.5), "r", "r", "r"),
    "addcdiv": calling(lambda e, d, a, b, c: e.addcdiv(a, b, c, value=2), "r", "r", "n"),
    "cumprod": along(lambda e, x, dim, d: e.cumprod(x, dim)),
    "logcumsumexp": along(lambda e, x, dim, d: e.logcumsumexp(x, dim)),
    "logsumexp": along(lambda e, x, dim, d: e.logsumexp(x, dim, keepdim=d)),
    "nansum": along(lambda e, x, dim, d: e.nansum(x, dim, keepdim=d)),
    "cummax": along(lambda e, x, dim, d: e.cummax(x, dim).values),
    "cummin": along(lambda e, x, dim, d: e.cummin(x, dim).values),
    "mode": along(lambda e, x, dim, d: e.mode(x, dim, keepdim=d).values),
    "dist": custom(_dist),
    "rot90": custom(_rot90),
    "linalg_cross": custom(_cross),
    "block_diag": custom(_block_diag),
    "cdist": custom(_pairs_of_rows),
    "index_add": custom(_index_add),
    "index_fill": custom(_index_fill),
})


# -- the rows the recurrent and attention layers and the distributions use (issue 13) ----------

def _pack_padded(draw, rng):
    batch, steps = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lengths = tuple(sorted((draw(st.integers(1, steps)) for _ in range(batch)), reverse=True))
    first = draw(st.booleans())
    shape = (batch, steps, 2) if first else (steps, batch, 2)
    return [values(rng, shape)], {"lengths": lengths, "batch_first": first, "shape": shape}, None


def _baddbmm(draw, rng):
    b, n, k, m = (draw(st.integers(1, 3)) for _ in range(4))
    beta, alpha = draw(st.sampled_from([1, 0.5])), draw(st.sampled_from([1, -2.0]))
    return [values(rng, (b, n, m)), values(rng, (b, n, k)), values(rng, (b, k, m))], {
        "beta": beta, "alpha": alpha}, None


def _spd(draw, rng):
    n = draw(st.integers(1, 3))
    a = values(rng, (draw(st.integers(1, 2)), n, n))
    return [a @ np.swapaxes(a, -1, -2) + n * np.eye(n)], {}, lambda ts: engine.ops.numeric \
        .linalg_cholesky((ts[0] + ts[0].mT) * 0.5)  # symmetric in the perturbed input too


def _triangular(draw, rng):
    n, k = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    upper = draw(st.booleans())
    a = values(rng, (n, n)) * 0.3 + 2 * np.eye(n)
    return [a, values(rng, (n, k))], {"upper": upper}, None


RECIPES.update({
    "pack_padded_sequence": custom(_pack_padded),
    "safe_softmax": along(lambda e, x, dim, d: e._safe_softmax(x, dim)),
    "baddbmm": custom(_baddbmm),
    "lgamma": one("p"),
    "digamma": one("p"),
    "polygamma": custom(lambda d, rng: ([values(rng, d(small_shape), "p")],
                                        {"n": d(st.integers(0, 3))}, None)),
    "polygamma_": custom(lambda d, rng: (lambda n: (
        [values(rng, d(small_shape), "p")], {}, lambda ts: (ts[0] * 1).polygamma_(n)))(
        d(st.integers(0, 2)))),
    "linalg_cholesky": custom(_spd),
    "solve_triangular": custom(_triangular),
})
# a random draw has no finite difference: its reparameterised gradient is compared with
# PyTorch's in tests/engine/ops/test_more_ops.py (``layers-standard_gamma``)
CHECKED_AGAINST_TORCH = {"standard_gamma"}


# (last: the recipes of every section above are parametrized)
@pytest.mark.parametrize("name", sorted(RECIPES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_row_matches_finite_differences(name, data, seed):
    rng = np.random.default_rng(seed)
    arrays, params, call = RECIPES[name](data.draw, rng)
    tensors, out = _run(name, arrays, params, call)
    assert out.requires_grad
    g = rng.standard_normal(out.shape).astype(out.detach().numpy().dtype)
    out.backward(engine.tensor(g))
    for i, (a, t) in enumerate(zip(arrays, tensors)):
        if not (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
            continue
        expected = _numeric_grad(name, arrays, params, call, i, g)
        assert t.grad is not None, f"no gradient reached input {i}"
        assert t.grad.shape == a.shape
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: input {i}")
