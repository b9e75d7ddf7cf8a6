"""The few ops ``torch.distributions`` needs that the engine's op table does not have yet
(``lgamma``, ``digamma``, ``polygamma(1)``, ``erf``, ``logsumexp``), as rows of their own small
table (``engine.ops.table.row(..., table=ROWS)``) recorded by the same dispatcher, so their nodes
carry PyTorch's names (``LgammaBackward0``...). When the main table gains one of them, its row here
goes. Also ``broadcast_tensors`` and ``finfo``, which these modules use as torch's do.

Rules get plain arrays, or ``Traced`` values under ``create_graph=True``: then the derivative is
itself one of these ops, recorded (``_through``), so a second derivative exists.
"""

from __future__ import annotations

import math

import numpy as np

from ..ops import dispatch
from ..ops.table import row

ROWS: dict = {}


def _elementwise(fn, x: np.ndarray) -> np.ndarray:
    """The double ``fn`` per element (math's lgamma/erf: numpy has none), in ``x``'s dtype."""
    flat = np.fromiter(map(fn, x.reshape(-1).astype(np.float64).tolist()), np.float64, x.size)
    return flat.reshape(x.shape).astype(x.dtype, copy=False)


def _lgamma1(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:  # the poles 0, -1, -2, ...: PyTorch (C's lgamma) gives +inf
        return math.inf


_PSI_10 = 2.25175258906672110764
_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)


def _digamma_np(x: np.ndarray) -> np.ndarray:
    """ATen's ``calc_digamma`` (Math.h), vectorised: reflection below 0, the recurrence up to 10,
    then the asymptotic series."""
    a = np.asarray(x, np.float64)
    out = np.zeros_like(a)
    neg = a < 0
    z = np.where(neg, 1 - a, a)
    with np.errstate(all="ignore"):
        refl = np.where(neg, -math.pi / np.tan(math.pi * np.modf(a)[0]), 0.0)
        while True:
            small = z < 10
            if not small.any():
                break
            out -= np.where(small, 1 / np.where(small, z, 1), 0)
            z = np.where(small, z + 1, z)
        zz = 1.0 / (z * z)
        poly = np.zeros_like(z)
        for c in _PSI_A:
            poly = poly * zz + c
        tail = np.where(z < 1e17, zz * poly, 0.0)
        out = np.where(z == 10, out + _PSI_10, out + np.log(z) - 0.5 / z - tail) + refl
    out = np.where(a == 0, np.copysign(np.inf, -a), out)
    out = np.where(neg & (a == np.trunc(a)), np.nan, out)
    return out.astype(np.asarray(x).dtype, copy=False)


def _trigamma_np(x: np.ndarray) -> np.ndarray:
    """ATen's ``calc_trigamma``: reflection below 1/2, six steps of the recurrence, the series."""
    a = np.asarray(x, np.float64)
    low = a < 0.5
    with np.errstate(all="ignore"):
        result = np.where(low, -(math.pi ** 2) / np.sin(math.pi * a) ** 2, 0.0)
        z = np.where(low, 1 - a, a)
        for _ in range(6):
            result = result + 1 / (z * z)
            z = z + 1
        ixx = 1 / (z * z)
        result = result + (1 + 1 / (2 * z) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / z
    return np.where(low, -result, result).astype(np.asarray(x).dtype, copy=False)


def _through(name, g, x, np_fn):
    """``g * f(x)``: numpy on arrays; under create_graph the recorded op ``ROWS[name]``."""
    if x.__class__ is np.ndarray:
        return g * np_fn(x)
    from ..autograd.higher_order import Traced

    return g * Traced(dispatch.apply(ROWS[name], x.t))


def _logsumexp_np(x, dim, keepdim):
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


def _logsumexp_grad(g, ans, x, dim, keepdim):
    if not keepdim:
        g, ans = np.expand_dims(g, dim), np.expand_dims(ans, dim)
    return g * np.exp(x - ans)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

row("polygamma1", "PolygammaBackward0", _trigamma_np, table=ROWS, floating=True)
row("digamma", "DigammaBackward0", _digamma_np,
    lambda g, ans, x: _through("polygamma1", g, x, _trigamma_np), saves="x", table=ROWS,
    floating=True)
row("lgamma", "LgammaBackward0", lambda x: _elementwise(_lgamma1, x),
    lambda g, ans, x: _through("digamma", g, x, _digamma_np), saves="x", table=ROWS,
    floating=True)
row("erf", "ErfBackward0", lambda x: _elementwise(math.erf, x),
    lambda g, ans, x: g * (_TWO_OVER_SQRT_PI * np.exp(-(x * x))), saves="x", table=ROWS,
    floating=True)
row("logsumexp", "LogsumexpBackward0", _logsumexp_np, _logsumexp_grad, saves="xr", table=ROWS,
    floating=True)


def _xlogy_np(x, y):
    with np.errstate(all="ignore"):
        out = x * np.log(y)
    return np.where((x == 0) & ~np.isnan(y), 0, out).astype(out.dtype, copy=False)


row("xlogy", "XlogyBackward0", _xlogy_np,
    lambda g, ans, x, y: g * _xlogy_np((x != 0).astype(g.dtype), y),
    lambda g, ans, x, y: g * x / y, saves="xy", table=ROWS, floating=True)


# -- linear algebra (MultivariateNormal): batched over the leading dims -----------------------

def _mT(a):
    return np.swapaxes(a, -1, -2)


def _column_major(a):
    """``a`` with each matrix stored by columns, as LAPACK returns them to ATen (so reshapes
    of the result copy or alias as torch's do)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)


def _solve_tri_np(a, b, upper):
    """``linalg.solve_triangular(a, b, upper=upper)`` (left side), in ``a``'s dtype."""
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a64 = np.broadcast_to(a.astype(np.float64), shape + a.shape[-2:])
    b64 = np.broadcast_to(b.astype(np.float64), shape + b.shape[-2:])
    mask = np.triu(np.ones(a.shape[-2:], bool)) if upper else np.tril(np.ones(a.shape[-2:], bool))
    return np.linalg.solve(np.where(mask, a64, 0), b64).astype(np.result_type(a, b))


def _cholesky_grad(g, ans, x):
    # Iain Murray (2016), as ATen's cholesky_backward: phi(L^H gL) between L^-H and L^-1
    ln = ans
    eye = np.broadcast_to(np.eye(ln.shape[-1], dtype=ln.dtype), ln.shape)
    l_inv = _solve_tri_np(ln, eye, upper=False)
    phi = np.tril(_mT(ln) @ g)
    idx = np.arange(ln.shape[-1])
    phi[..., idx, idx] *= 0.5
    ga = _mT(l_inv) @ phi @ l_inv
    return 0.5 * (ga + _mT(ga))


def _solve_tri_grads(g, ans, a, b, upper):
    gb = _solve_tri_np(_mT(a), g, upper=not upper)
    ga = -gb @ _mT(ans)
    return (np.triu(ga) if upper else np.tril(ga)), gb


def _cholesky_np(x):
    try:
        return np.linalg.cholesky(x.astype(np.float64)).astype(x.dtype)
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because "
                           "the input is not positive-definite.") from None


row("linalg_cholesky", "LinalgCholeskyExBackward0", lambda x: _column_major(_cholesky_np(x)),
    _cholesky_grad, saves="r",
    table=ROWS)
row("solve_triangular", "LinalgSolveTriangularBackward0",
    lambda a, b, upper: _column_major(_solve_tri_np(a, b, upper)),
    lambda g, ans, a, b, upper: _solve_tri_grads(g, ans, a, b, upper)[0],
    lambda g, ans, a, b, upper: _solve_tri_grads(g, ans, a, b, upper)[1], saves="xyr",
    table=ROWS)


def _diagonal_grad(g, ans, x, shape):
    out = np.zeros(shape, g.dtype)
    idx = np.arange(min(shape[-2:]))
    out[..., idx, idx] = g
    return out


row("diagonal", "DiagonalBackward0",
    lambda x, shape: np.diagonal(x, axis1=-2, axis2=-1), _diagonal_grad, view=True, table=ROWS)


def cholesky(input):
    return dispatch.apply(ROWS["linalg_cholesky"], input)


def solve_triangular(a, b, *, upper):
    return dispatch.apply(ROWS["solve_triangular"], a, b, upper=upper)


def diagonal(input):
    """``input.diagonal(dim1=-2, dim2=-1)``."""
    return dispatch.apply(ROWS["diagonal"], input, shape=tuple(input.shape))


def xlogy(x, y):
    return dispatch.apply(ROWS["xlogy"], x, y)


def lgamma(input):
    return dispatch.apply(ROWS["lgamma"], input)


def digamma(input):
    return dispatch.apply(ROWS["digamma"], input)


def erf(input):
    return dispatch.apply(ROWS["erf"], input)


def logsumexp(input, dim, keepdim=False):
    dim = dim % max(input.ndim, 1)
    return dispatch.apply(ROWS["logsumexp"], input, dim=dim, keepdim=keepdim)


def broadcast_tensors(*tensors):
    """``torch.broadcast_tensors``: each tensor expanded to the common shape, itself when it
    already has it (as ATen's ``expand_outplace``)."""
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


class finfo:
    """``torch.finfo`` of a float dtype: the numbers these modules read."""

    def __init__(self, dtype) -> None:
        from .. import dtypes

        info = np.finfo(dtypes.to_numpy_dtype(dtype))
        self.eps = float(info.eps)
        self.tiny = float(info.tiny)
        self.min = float(info.min)
        self.max = float(info.max)
        self.bits = int(info.bits)
        self.dtype = str(dtype).removeprefix("torch.")
