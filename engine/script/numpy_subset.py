"""``import numpy as np`` in a script: arrays, dtypes, creation, seeded random numbers and
elementwise math. Nothing that reads or writes files (``load``, ``save``, ``fromfile``, ``memmap``,
``loadtxt``, ``lib``), nothing that runs code from strings, no global print options.
"""

from __future__ import annotations

import numpy as np

from .guards import arange_length, check_elements, product
from .limits import Limits
from .modules import ModuleProxy

_PASS_THROUGH = (
    # dtypes and constants
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "pi", "e", "inf", "nan", "newaxis",
    # building from data
    "array", "asarray", "zeros_like", "ones_like", "full_like", "empty_like", "copy",
    # elementwise math
    "abs", "absolute", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "square", "sin",
    "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "sign", "floor", "ceil",
    "round", "clip", "maximum", "minimum", "power", "add", "subtract", "multiply", "divide",
    "negative", "reciprocal", "isnan", "isinf", "isfinite", "where", "exp2",
    # reductions and linear algebra
    "sum", "mean", "std", "var", "max", "min", "prod", "argmax", "argmin", "cumsum", "dot",
    "matmul", "allclose", "isclose", "array_equal", "all", "any",
    # shapes
    "reshape", "transpose", "concatenate", "stack", "squeeze", "expand_dims", "ravel", "shape",
    "ndim", "size",
)


def _sized(fn, limits: Limits, size_of):
    def checked(*args, **kwargs):
        check_elements(size_of(args, kwargs), limits)
        return fn(*args, **kwargs)

    checked.__name__ = getattr(fn, "__name__", "function")
    return checked


def _shape_first(args, kwargs):
    shape = kwargs.get("shape", args[0] if args else None)
    if isinstance(shape, int) and not isinstance(shape, bool):
        return shape
    return product(shape) if isinstance(shape, (tuple, list)) else None


def _dims(args, kwargs):  # rand(2, 3), randn(2, 3)
    return product(args)


def _size_kw(args, kwargs, position):
    size = kwargs.get("size", args[position] if len(args) > position else None)
    if size is None:
        return 1
    if isinstance(size, int) and not isinstance(size, bool):
        return size
    return product(size) if isinstance(size, (tuple, list)) else None


def _linspace_len(args, kwargs):
    n = kwargs.get("num", args[2] if len(args) > 2 else 50)
    return n if isinstance(n, int) else None


def _eye_len(args, kwargs):
    n = args[0] if args else kwargs.get("N")
    m = args[1] if len(args) > 1 else kwargs.get("M", n)
    m = n if m is None else m
    return product((n, m))


def numpy_module(limits: Limits, seed: int) -> ModuleProxy:
    """A fresh ``np`` for one script run; its random numbers come from its own seeded state."""
    exports = {name: getattr(np, name) for name in _PASS_THROUGH if hasattr(np, name)}
    exports["float"] = np.float64  # old aliases tutorials still use
    exports["int"] = np.int64
    exports["zeros"] = _sized(np.zeros, limits, _shape_first)
    exports["ones"] = _sized(np.ones, limits, _shape_first)
    exports["empty"] = _sized(np.zeros, limits, _shape_first)  # no uninitialised memory
    exports["full"] = _sized(np.full, limits, _shape_first)
    exports["arange"] = _sized(np.arange, limits, arange_length)
    exports["linspace"] = _sized(np.linspace, limits, _linspace_len)
    exports["eye"] = _sized(np.eye, limits, _eye_len)
    exports["random"] = _random_module(limits, seed)
    return ModuleProxy("numpy", exports=exports)


def _random_module(limits: Limits, seed: int) -> ModuleProxy:
    state = np.random.RandomState(seed % (2**32))
    exports = {
        "seed": lambda seed=None: state.seed(seed),
        "rand": _sized(state.rand, limits, _dims),
        "randn": _sized(state.randn, limits, _dims),
        "random": _sized(state.random_sample, limits, lambda a, k: _size_kw(a, k, 0)),
        "random_sample": _sized(state.random_sample, limits, lambda a, k: _size_kw(a, k, 0)),
        "randint": _sized(state.randint, limits, lambda a, k: _size_kw(a, k, 2)),
        "normal": _sized(state.normal, limits, lambda a, k: _size_kw(a, k, 2)),
        "uniform": _sized(state.uniform, limits, lambda a, k: _size_kw(a, k, 2)),
        "choice": _sized(state.choice, limits, lambda a, k: _size_kw(a, k, 1)),
        "permutation": _sized(state.permutation, limits,
                              lambda a, k: a[0] if a and isinstance(a[0], int) else None),
        "shuffle": state.shuffle,
    }
    return ModuleProxy("numpy.random", exports=exports)
