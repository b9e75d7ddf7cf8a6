"""gradstep's engine: a numpy autograd that behaves like PyTorch 2.x (``import engine as torch``).

Nothing here imports Qt. The pieces: ``tensor`` (the Tensor class), ``ops`` (the op table and
dispatch), ``autograd`` (nodes, the stepwise backward pass, grad modes), ``nn``, ``optim``,
``events`` (what the engine reports to the debugger), ``script`` (the safe interpreter).
"""

from __future__ import annotations

import numpy as _np

from . import autograd

# PyTorch computes log(0) = -inf, 0/0 = nan and overflows silently; numpy would print a
# RuntimeWarning for each. A per-op ``np.errstate`` costs more than a small op itself, so the
# engine sets numpy's floating-point error policy once, on import.
_np.seterr(all="ignore")
from .autograd.anomaly import detect_anomaly, set_detect_anomaly
from .autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    Generator, arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
    get_rng_state, initial_seed, is_tensor, linspace, logspace, manual_seed, normal, numel,
    ones, ones_like, rand, rand_like, randint, randn, randn_like, randperm, seed, tensor, zeros,
    zeros_like,
)
from .dtypes import (
    bool, double, dtype, float, float16, float32, float64, half, int, int8, int16, int32, int64,
    long, short, uint8,
)
from .ops.api import (
    abs, absolute, add, addmm, allclose, amax, argmax, argmin, bmm, cat, ceil, clamp, clip,
    clone, concat, concatenate, cos, div, divide, dot, eq, equal, exp, flatten, floor,
    floor_divide, ge, gt, isclose, isfinite, isinf, isnan, le, log, log_softmax, logical_and,
    logical_not, logical_or, lt, matmul, max, maximum, mean, min, minimum, mm, mul, multiply, mv,
    ne, neg, negative, norm, permute, pow, reciprocal, relu, remainder, reshape, round, rsub,
    sigmoid, sign, sin, softmax, sqrt, squeeze, stack, sub, subtract, sum, swapaxes, t, tanh,
    transpose, true_divide, unsqueeze, where,
)
from .ops.api import amin, fix, fmod, square, trunc
from .ops.api import cumsum, expm1, log1p, prod, std, var
from .tensor import Size, Tensor, device
from .tensor_format import set_printoptions

FloatTensor = Tensor  # old spellings
__version__ = "2.13.0+gradstep"


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def get_default_dtype():
    return float32


def _lazy(name):
    import importlib

    return importlib.import_module(f".{name}", __name__)


def __getattr__(name):
    # nn and optim are imported on first use, keeping ``import engine`` light.
    if name in ("nn", "optim", "script"):
        module = _lazy(name)
        globals()[name] = module
        return module
    if name == "cuda":
        from . import _cuda

        return _cuda
    raise AttributeError(f"module 'torch' has no attribute '{name}'")
