"""The few fused updates optimizers use, rounded as PyTorch's CPU kernels round them.

PyTorch's vectorised ``add_(x, alpha=a)``, ``addcmul_`` and ``lerp_`` compute ``u * v + w`` with a
fused multiply-add: one rounding instead of numpy's two (``engine.ops.fused.fma``, which the
``add``/``sub`` rows use too).
"""

from __future__ import annotations

import numpy as np

from ..ops.fused import fma


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
