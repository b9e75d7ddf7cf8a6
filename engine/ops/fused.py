"""``u * v + w`` rounded once, as PyTorch's vectorised CPU kernels compute it (``vec::fmadd``):
``add``/``sub`` with ``alpha``, and the optimizers' ``add_(x, alpha=)``, ``addcmul_``, ``lerp_``.

numpy has no fused multiply-add, and ``u * v + w`` rounds twice: one float32 element in five
came out a unit in the last place off PyTorch's ``a.add(b, alpha=0.3)``. float32: the product of
two floats is exact in float64, and their sum there rounded to float32 is the fused result
(rounding twice errs only where that double is exactly halfway between two floats: about one
inexact sum in 2**29; no test has met one). float64: the exact product and the exact sum as
pairs of doubles (Veltkamp's split, Knuth's two-sum), the low parts added rounded to odd and the
total rounded once (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums", 2008).
Both equal PyTorch's ``add(alpha=)`` bit for bit on every shape whose second operand varies
along the last dimension; where it is constant there (a 0-d ``other``, a ``(n, 1)`` column),
PyTorch's kernel adds some elements unfused, and a few of those differ. Both cost several
passes over memory, so arrays past ``EXACT_LIMIT`` elements round twice (at most one unit in the
last place apart).
"""

from __future__ import annotations

import numpy as np

EXACT_LIMIT = 1 << 16  # elements
_SPLIT = 134217729.0  # 2**27 + 1: splits a double into two halves of 26 bits
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def fma(u, v, w, out=None) -> np.ndarray:
    """``u * v + w`` in the dtype of ``w`` (broadcast), rounded once for float32 and float64
    arrays up to ``EXACT_LIMIT`` elements; written into ``out`` when given."""
    dtype = w.dtype
    size = max(np.size(u), np.size(v), w.size)
    if dtype == _F32 and size <= EXACT_LIMIT:
        product = np.multiply(u, v, dtype=_F64)  # exact
        result = np.add(product, w, out=product if product.__class__ is np.ndarray
                        and product.shape == w.shape else None)
    elif dtype == _F64 and size <= EXACT_LIMIT:
        result = _fma64(np.asarray(u, _F64), np.asarray(v, _F64), w)
    else:
        product = np.multiply(u, v, dtype=dtype)
        return np.add(product, w, out=out if out is not None else (
            product if product.__class__ is np.ndarray and product.shape == w.shape else None))
    if out is None:
        return result.astype(dtype, copy=False)
    np.copyto(out, result, casting="unsafe")
    return out


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a, b):
    p = a * b
    ca = _SPLIT * a
    ah = ca - (ca - a)
    al = a - ah
    cb = _SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _add_rounded_to_odd(a, b):
    # the nearest sum, moved one unit towards the exact one when it is inexact and even
    s, e = _two_sum(a, b)
    nudge = (e != 0) & ((s.view(np.int64) & 1) == 0)
    return np.where(nudge, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _fma64(u, v, w):
    with np.errstate(over="ignore", invalid="ignore"):
        ph, pl = _two_product(u, v)
        th, tl = _two_sum(w, ph)
        exact = th + _add_rounded_to_odd(tl, pl)
        plain = u * v + w
    # where the splitting overflows or meets inf/nan, or the product underflows, the plain
    # expression is what the hardware gives too (its one rounding is the only one left)
    return np.where(np.isfinite(exact) & (np.abs(ph) >= 1e-290), exact, plain)
