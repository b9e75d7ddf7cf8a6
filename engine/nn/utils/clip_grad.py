"""Gradient clipping, in place on ``.grad`` as ``torch.nn.utils`` does it."""

from __future__ import annotations

import math

import numpy as np

from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None):
    """Scale the gradients so that their joint norm is at most ``max_norm``.

    Returns
    -------
    Tensor
        The total norm of the gradients before clipping (a 0-dim tensor).
    """
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._wrap(np.zeros((), dtype=np.float32))
    dtype = grads[0]._data.dtype
    if math.isinf(norm_type):
        norms = [np.max(np.abs(g._data)) if g._data.size else dtype.type(0) for g in grads]
        total = np.max(np.asarray(norms, dtype=dtype))
    else:
        # the norm of the per-tensor norms, as torch.linalg.vector_norm composes them
        norms = [np.sum(np.abs(g._data) ** norm_type, dtype=dtype) ** (1 / norm_type)
                 for g in grads]
        total = np.sum(np.asarray(norms, dtype=dtype) ** norm_type, dtype=dtype) \
            ** (1 / norm_type)
    total = np.asarray(total, dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    clip_coef = np.asarray(max_norm, dtype) / (total + np.asarray(1e-6, dtype))
    clip_coef = np.minimum(clip_coef, np.asarray(1.0, dtype))
    for g in grads:
        np.multiply(g._data, clip_coef, out=g._data, casting="unsafe")
        g._version.value += 1
    return Tensor._wrap(total)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._version.value += 2  # PyTorch clamps in two in-place passes (min, then max)
