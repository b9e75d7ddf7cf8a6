"""The few fused updates optimizers use, rounded as PyTorch's CPU kernels round them.

PyTorch's vectorised ``add_(x, alpha=a)``, ``addcmul_`` and ``lerp_`` compute ``u * v + w`` with a
fused multiply-add: one rounding instead of numpy's two. For float32 the product of two floats is
exact in float64, so computing there and rounding once reproduces the fused result bit for bit.
That costs several passes over memory, so it is done for debugger-sized tensors only (up to
``EXACT_FMA_LIMIT`` elements); larger float32 tensors and float64 ones round twice, which differs
by at most one unit in the last place per update.
"""

from __future__ import annotations

import numpy as np

EXACT_FMA_LIMIT = 1 << 16


def fma(u, v, w, out=None) -> np.ndarray:
    """``u * v + w`` in the dtype of ``w``, rounded once when exactness is cheap (written into
    ``out`` when given)."""
    dtype = w.dtype
    if dtype == np.float32 and w.size <= EXACT_FMA_LIMIT:
        result = np.multiply(u, v, dtype=np.float64)
        result += w
        if out is None:
            return result.astype(dtype)
        np.copyto(out, result, casting="unsafe")
        return out
    product = np.multiply(u, v, dtype=dtype)
    return np.add(product, w, out=product if out is None else out)


def _scalar(value, like: np.ndarray):
    # PyTorch converts a Python scalar to the tensor's dtype before the kernel runs
    return like.dtype.type(value)


def add_scaled(target: np.ndarray, other: np.ndarray, alpha: float) -> np.ndarray:
    """``target.add(other, alpha=alpha)``: a new array."""
    return fma(other, _scalar(alpha, target), target)


def add_scaled_(target: np.ndarray, other: np.ndarray, alpha: float) -> None:
    """``target.add_(other, alpha=alpha)`` in place."""
    fma(other, _scalar(alpha, target), target, out=target)


def addcmul_(target: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1) -> None:
    """``target.addcmul_(t1, t2, value=value)``: ``target + (value * t1) * t2``, in place."""
    fma(_scalar(value, target) * t1, t2, target, out=target)


def addcmul(target: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1) -> np.ndarray:
    """``target.addcmul(t1, t2, value=value)``: a new array."""
    return fma(_scalar(value, target) * t1, t2, target)


def addcdiv_(target: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1) -> None:
    """``target.addcdiv_(t1, t2, value=value)``: ``target + (value * t1) / t2`` (no fusing)."""
    target += _scalar(value, target) * t1 / t2


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """``start.lerp_(end, weight)`` with PyTorch's two formulas (exact at both ends)."""
    w = _scalar(weight, start)
    diff = end - start
    if abs(w) < 0.5:
        fma(w, diff, start, out=start)
    else:
        fma(-diff, start.dtype.type(1) - w, end.astype(start.dtype, copy=False), out=start)
