"""``import numpy as np`` in a script: arrays, dtypes, creation, seeded random numbers (also
``np.random.default_rng``, ``numpy_rng.py``) and elementwise math. Nothing that reads or writes
files (``load``, ``save``, ``fromfile``, ``memmap``, ``loadtxt``, ``lib``), nothing that runs code
from strings, no global print options.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .errors import forbidden, limit
from .guards import arange_length, check_elements, product
from .limits import Limits
from .modules import ModuleProxy
from .numpy_rng import default_rng

_PASS_THROUGH = (
    # dtypes and constants
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "pi", "e", "inf", "nan", "newaxis", "finfo", "iinfo",
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


def _sized(fn, limits: Limits, size_of, room=None):
    """``fn`` with its result's size (``size_of(args, kwargs)``, elements) and its ``dtype=``
    checked before it runs; a plain function, so ``np.add.outer`` and the like are not reachable.
    The result is screened too (dtype, size, memory: ``ScreeningMixin._screen_array``)."""
    def checked(*args, **kwargs):
        _check_result(limits, room, size_of(args, kwargs), kwargs.get("dtype", None))
        return fn(*args, **kwargs)

    checked.__name__ = getattr(fn, "__name__", "function")
    return checked


def _check_result(limits: Limits, room, n, dtype=None) -> None:
    """Refuse a result of ``n`` elements (None: not known) of ``dtype``: its dtype, the element
    limit, and the memory budget (``max_total_bytes``) before numpy allocates it."""
    check_dtype(dtype)
    check_elements(n, limits)
    if room is not None and n is not None and n >= 16384:
        room(n * _itemsize(dtype))


def _itemsize(dtype) -> int:
    try:
        return np.dtype(dtype).itemsize if dtype is not None else 8
    except (TypeError, ValueError):
        return 1


def check_dtype(dtype) -> None:
    """``dtype=object``, ``'O'``, ``str``: arrays of Python objects run Python code (and big-int
    arithmetic) inside numpy's C loops, out of the interpreter's reach."""
    if dtype is None:
        return
    try:
        kind = np.dtype(dtype).kind
    except (TypeError, ValueError):
        return  # numpy reports it
    if kind in "OUSV":
        raise forbidden(f"numpy arrays of dtype {dtype!r} are not available in gradstep scripts "
                        "(only numbers and booleans)")


def _numel(x):
    """Elements of an array or tensor (None for anything else)."""
    if isinstance(x, Tensor):
        return x._data.size
    n = getattr(x, "size", None) if isinstance(x, (np.ndarray, np.generic)) else None
    return n if isinstance(n, int) else None


def _shape_of(x):
    shape = getattr(x, "shape", None)
    if isinstance(shape, tuple):
        return shape
    return None


def _broadcast(args, kwargs):
    """Elements of the broadcast of the array arguments (elementwise functions and ufuncs)."""
    shapes = [s for s in map(_shape_of, (*args, *kwargs.values())) if s is not None]
    if len(shapes) < 2:
        return None
    try:
        return product(np.broadcast_shapes(*shapes))
    except ValueError:
        return None  # numpy reports the mismatch


def _outer_size(args, kwargs):
    sizes = [_numel(a) for a in args[:2]]
    if all(isinstance(n, int) for n in sizes) and len(sizes) == 2:
        return sizes[0] * sizes[1]
    return None


def _dot_size(args, kwargs):
    if len(args) < 2:
        return None
    sa, sb = _shape_of(args[0]), _shape_of(args[1])
    if sa is None or sb is None or not sa or not sb:
        return _broadcast(args, kwargs)
    if len(sb) == 1:
        return product(sa[:-1])
    return product(sa[:-1]) * product(sb[:-2]) * sb[-1]


def _joined_size(args, kwargs):
    """``concatenate([a] * 1000)``: the sum of the parts."""
    parts = args[0] if args else kwargs.get("arrays")
    if not isinstance(parts, (list, tuple)):
        return None
    total = 0
    for p in parts:
        n = _numel(p)
        if n is not None:
            total += n
        elif isinstance(p, (list, tuple)):
            total += _nested_size(p)
    return total


def _nested_size(obj, depth=0) -> int:
    """Elements of ``np.array(obj)`` for nested lists holding arrays (``[a] * 1000``); shared
    items counted as often as they occur, with a memo so it stays linear."""
    memo = {}

    def walk(o, d):
        n = _numel(o)
        if n is not None:
            return n
        if not isinstance(o, (list, tuple)):
            return 1
        known = memo.get(id(o))
        if known is not None:
            return known
        if d > 64:
            raise limit("data nested too deeply for an array")
        total = sum(walk(x, d + 1) for x in o)
        memo[id(o)] = total
        return total

    return walk(obj, depth)


def _data_size(args, kwargs):
    data = args[0] if args else kwargs.get("object")
    if len(args) > 1:
        check_dtype(args[1])
    return _nested_size(data) if isinstance(data, (list, tuple)) else None


def _first_dtype(position):
    """``zeros_like(a, dtype)``: the dtype checked; as many elements as ``a``."""
    def size_of(args, kwargs):
        if len(args) > position:
            check_dtype(args[position])
        return _numel(args[0]) if args else None

    return size_of


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
    # size=np.int64(10**10) is as large as 10**10
    return product(size) if isinstance(size, (tuple, list, np.ndarray)) else product((size,))


def _linspace_len(args, kwargs):
    n = kwargs.get("num", args[2] if len(args) > 2 else 50)
    return n if isinstance(n, int) else None


def _eye_len(args, kwargs):
    n = args[0] if args else kwargs.get("N")
    m = args[1] if len(args) > 1 else kwargs.get("M", n)
    m = n if m is None else m
    return product((n, m))


_SIZES = {
    "array": _data_size, "asarray": _data_size, "dot": _dot_size, "matmul": _dot_size,
    "concatenate": _joined_size, "stack": _joined_size, "zeros_like": _first_dtype(1),
    "ones_like": _first_dtype(1), "empty_like": _first_dtype(1), "full_like": _first_dtype(2),
}


def numpy_module(limits: Limits, seed: int, memory=None) -> ModuleProxy:
    """A fresh ``np`` for one script run; its random numbers come from its own seeded state.
    ``memory`` (the run's ``MemoryMeter``) refuses a result past ``max_total_bytes`` before numpy
    allocates it."""
    room = memory.check_room if memory is not None else None

    def sized(fn, size_of):
        return _sized(fn, limits, size_of, room)

    exports = {name: getattr(np, name) for name in _PASS_THROUGH if hasattr(np, name)}
    for name, value in list(exports.items()):
        if callable(value) and not isinstance(value, type):  # dtypes stay classes
            exports[name] = sized(value, _SIZES.get(name, _broadcast))
    exports["outer"] = sized(np.outer, _outer_size)
    exports["float"] = np.float64  # old aliases tutorials still use
    exports["int"] = np.int64
    exports["zeros"] = sized(np.zeros, _shape_first)
    exports["ones"] = sized(np.ones, _shape_first)
    exports["empty"] = sized(np.zeros, _shape_first)  # no uninitialised memory
    exports["full"] = sized(np.full, _shape_first)
    exports["arange"] = sized(np.arange, arange_length)
    exports["linspace"] = sized(np.linspace, _linspace_len)
    exports["eye"] = sized(np.eye, _eye_len)
    exports["random"] = _random_module(sized, seed, lambda n, dtype: _check_result(
        limits, room, n, dtype))
    exports["__version__"] = np.__version__  # printed next to torch.__version__ (underscore.py)
    return ModuleProxy("numpy", exports=exports)


def _random_module(sized, seed: int, check) -> ModuleProxy:
    state = np.random.RandomState(seed % (2**32))
    exports = {
        "default_rng": default_rng(check, _nested_size, seed),
        "seed": lambda seed=None: state.seed(seed),
        "rand": sized(state.rand, _dims),
        "randn": sized(state.randn, _dims),
        "random": sized(state.random_sample, lambda a, k: _size_kw(a, k, 0)),
        "random_sample": sized(state.random_sample, lambda a, k: _size_kw(a, k, 0)),
        "randint": sized(state.randint, lambda a, k: _size_kw(a, k, 2)),
        "normal": sized(state.normal, lambda a, k: _size_kw(a, k, 2)),
        "uniform": sized(state.uniform, lambda a, k: _size_kw(a, k, 2)),
        "choice": sized(state.choice, lambda a, k: _size_kw(a, k, 1)),
        "permutation": sized(state.permutation,
                             lambda a, k: a[0] if a and isinstance(a[0], int) else None),
        "shuffle": state.shuffle,
    }
    return ModuleProxy("numpy.random", exports=exports)
