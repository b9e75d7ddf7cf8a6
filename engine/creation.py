"""Creating tensors: ``tensor``, ``zeros``, ``arange``, ``randn``, ``manual_seed``..."""

from __future__ import annotations

import builtins
import collections
import collections.abc
import itertools
import math
import numbers

import numpy as np

from . import budget as _budget
from . import dtypes as _dt
from . import random as _random
from .tensor import Tensor

# The random functions draw from PyTorch's CPU generator, reproduced bit for bit in
# ``engine.random`` (the default generator; ``generator=`` takes an ``engine.Generator``).
Generator = _random.Generator
default_generator = _random.default_generator
manual_seed = _random.manual_seed
seed = _random.seed
initial_seed = _random.initial_seed
get_rng_state = _random.get_rng_state
set_rng_state = _random.set_rng_state
bernoulli = _random.bernoulli
multinomial = _random.multinomial


class _StateView:
    """What ``rng()`` returns: ``rng().bit_generator.state`` is the default generator's whole
    state as bytes (PyTorch's 5056-byte layout), comparable with ``==`` to see whether anything
    drew, and assignable."""

    @property
    def bit_generator(self):
        return self

    @property
    def state(self) -> bytes:
        return default_generator.get_state()._data.tobytes()

    @state.setter
    def state(self, value: bytes) -> None:
        default_generator.set_state(np.frombuffer(value, dtype=np.uint8))


_STATE_VIEW = _StateView()


def rng() -> _StateView:
    """The default generator's state (``rng().bit_generator.state``); draws go through
    ``engine.random``."""
    return _STATE_VIEW


def get_generator_state():
    """The default generator's whole state (the session snapshots a paused run's stream)."""
    return default_generator._snapshot()


def set_generator_state(state) -> None:
    default_generator._restore(state)


def _infer_dtype(data) -> np.dtype:
    """PyTorch's inference: bools, then ints (int64), then floats (the default float32)."""
    kinds = set()

    def walk(x):
        if isinstance(x, (list, tuple)):
            if not x:  # PyTorch: an empty sequence counts as the default dtype (float32)
                kinds.add("f")
            for y in x:
                walk(y)
        elif isinstance(x, Tensor):
            kinds.add(x._data.dtype.kind)
        elif isinstance(x, np.ndarray):  # [array, array]: PyTorch reads them as sequences
            _dt.from_numpy_dtype(x.dtype)
            kinds.add("f" if x.dtype.kind == "f" else "b" if x.dtype.kind == "b" else "i")
        elif isinstance(x, (bool, np.bool_)):
            kinds.add("b")
        elif isinstance(x, numbers.Integral):
            kinds.add("i")
        elif isinstance(x, numbers.Real):
            kinds.add("f")
        elif isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")

    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, str) and first is not data:  # a str is a sequence to PyTorch's sizes
        raise ValueError("too many dimensions 'str'")
    walk(data)
    if "f" in kinds:
        return _dt.DEFAULT_FLOAT
    if "i" in kinds or "u" in kinds:
        return _dt.DEFAULT_INT
    if "b" in kinds:
        return np.dtype(np.bool_)
    return _dt.DEFAULT_FLOAT


def _seq_len(x) -> int:
    return len(x) if isinstance(x, (list, tuple)) else -1


def _check_ragged(data, depth=0):
    if isinstance(data, (list, tuple)):
        lens = {len(x) if isinstance(x, (list, tuple)) else -1 for x in data}
        if len(lens) > 1:
            first = data[0]
            n = len(first) if isinstance(first, (list, tuple)) else 0
            bad = next(x for x in data if _seq_len(x) != _seq_len(first))
            raise ValueError(
                f"expected sequence of length {n} at dim {depth + 1} (got {max(_seq_len(bad), 0)})"
            )
        for x in data:
            _check_ragged(x, depth + 1)


def _plain_sequences(x):
    """Other sequences (``collections.deque``, ``range``) as lists: PyTorch reads any sequence."""
    if isinstance(x, (collections.abc.Sequence, collections.deque)) and not isinstance(
            x, (list, tuple, str, bytes)):
        return [_plain_sequences(y) for y in x]
    if isinstance(x, (list, tuple)) and x and not isinstance(x[0], numbers.Number):
        return [_plain_sequences(y) for y in x]
    return x


def _array_from(data, dtype=None) -> np.ndarray:
    target = None if dtype is None else _dt.to_numpy_dtype(dtype)
    data = _plain_sequences(data)
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        _dt.from_numpy_dtype(data.dtype)  # raises PyTorch's TypeError for unsupported dtypes
        arr = data
    elif isinstance(data, (np.generic,)):
        arr = np.asarray(data)
    elif _plain(data):
        # numbers in (nested) lists: built directly in the dtype asked for, checked as PyTorch
        # checks them (tensor_new.cpp), so [0.7] as float64 is 0.7, not float32's 0.69999999
        return _array_from_values(data, target)
    else:
        _check_ragged(data)
        inferred = _infer_dtype(data)
        _budget.check_elements(_nested_size(data), itemsize=inferred.itemsize)  # [a] * 1000
        if isinstance(data, (list, tuple)):
            data = _unwrap(data)
        arr = np.array(data, dtype=inferred)
    if target is not None:
        _budget.check_elements(arr.size, itemsize=target.itemsize)
        arr = arr.astype(target)
    return arr


def _nested_size(data) -> int:
    """Elements of nested lists of tensors/arrays, following each first element."""
    n = 1
    while isinstance(data, (list, tuple)):
        n *= len(data)
        if not data:
            return 0
        data = data[0]
    if isinstance(data, np.ndarray):
        return n * data.size
    numel = getattr(data, "numel", None)  # a Tensor: .size() is its shape, not a count
    return n * (numel() if callable(numel) else 1)


_NUMBER_TYPES = (builtins.bool, builtins.int, builtins.float, np.bool_, np.integer, np.floating)


def _plain(data) -> bool:
    """Whether ``data`` is a number or (nested) lists/tuples of numbers only (no tensors or
    arrays, which keep the general path)."""
    if isinstance(data, (list, tuple)):
        return all(_plain(x) for x in data)
    return isinstance(data, _NUMBER_TYPES)


def _torch_sizes(data) -> list:
    """PyTorch's ``compute_sizes``: the sizes come from following each first element."""
    sizes = []
    while isinstance(data, (list, tuple)):
        sizes.append(len(data))
        if not data:
            break
        data = data[0]
    return sizes


def _array_from_values(data, target) -> np.ndarray:
    dt = _infer_dtype(data) if target is None else target
    sizes = _torch_sizes(data)
    if 0 in sizes:  # PyTorch stores nothing into an empty tensor, so checks nothing either
        _budget.check_shape(sizes, itemsize=dt.itemsize)
        return np.zeros(sizes, dt)
    flat: list = []
    kind = dt.kind
    if kind == "f":
        convert = builtins.float  # OverflowError: int too large to convert to float, as PyTorch
    elif kind == "b":
        convert = builtins.bool
    else:
        info = np.iinfo(dt)
        # an unsigned dtype takes -max..-1 too, wrapping around, as PyTorch does
        low = -int(info.max) if info.min == 0 else int(info.min)
        high = int(info.max)

        overflow = f"value cannot be converted to type {dt.name} without overflow"

        def convert(v):
            if isinstance(v, (builtins.float, np.floating)):
                if not (v == v and int(info.min) <= v <= high):
                    raise RuntimeError(overflow)
                return int(v)
            v = int(v)
            if not -2**63 <= v < 2**63:
                raise ValueError("Overflow when unpacking long long")
            if not low <= v <= high:
                raise RuntimeError(overflow)
            return v
    _store(data, sizes, 0, kind, convert, flat)
    if kind in "iu":
        return np.array(flat, dtype=np.int64).astype(dt).reshape(sizes)
    with np.errstate(over="ignore"):  # float32/16 overflow to inf, as in PyTorch
        return np.array(flat, dtype=dt).reshape(sizes)


def _store(obj, sizes, dim, kind, convert, flat) -> None:
    """PyTorch's ``recursive_store``: each sequence must have its dim's size, each leaf must be
    a number the dtype can hold."""
    if dim == len(sizes):
        if isinstance(obj, (list, tuple)):
            name = type(obj).__name__
            if kind == "f":
                raise TypeError(f"must be real number, not {name}")
            raise TypeError(f"'{name}' object cannot be interpreted as an integer")
        flat.append(convert(obj))
        return
    if not isinstance(obj, (list, tuple)):
        raise TypeError("not a sequence")
    if len(obj) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(obj)})")
    for item in obj:
        _store(item, sizes, dim + 1, kind, convert, flat)


def _unwrap(data):
    if isinstance(data, (list, tuple)):
        return [_unwrap(x) for x in data]
    if isinstance(data, Tensor):
        return data.item() if data.numel() == 1 else data._data
    return data


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``."""
    _check_device(device)  # engine/device.py (not a wrapper: the warning's stacklevel)
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    arr = _array_from(data, dtype)
    _budget.check_elements(arr.size, itemsize=arr.itemsize)  # the copy
    return _finish(np.array(arr, copy=True), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _dt.to_numpy_dtype(dtype) == data.dtype):
        _dt.from_numpy_dtype(data.dtype)  # PyTorch's TypeError for object, str... arrays
        return Tensor._wrap(data)
    return Tensor._wrap(_array_from(data, dtype))


def from_numpy(array: np.ndarray) -> Tensor:
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dt.from_numpy_dtype(array.dtype)
    return Tensor._wrap(array)


def _flat_size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                "zeros(): argument 'size' (position 1) must be tuple of ints, but found element "
                f"of type {type(s).__name__} at pos 0"
            )
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: "
                f"[{', '.join(map(str, size))}]"
            )
    shape = tuple(int(s) for s in size)
    _budget.check_shape(shape)  # before any factory allocates it
    return shape


def _finish(arr, requires_grad) -> Tensor:
    t = Tensor._wrap(arr)
    if requires_grad:
        _check_can_require_grad(arr)
        t._requires_grad = True
    return t


def _check_can_require_grad(arr) -> None:
    # the factory functions' wording (``x.requires_grad_()`` words it differently)
    if arr.dtype.kind != "f":
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
        )


def _float_dtype(dtype):
    return _dt.DEFAULT_FLOAT if dtype is None else _dt.to_numpy_dtype(dtype)


def _size_kw(name, size, kw):
    """``size=`` given by keyword (``zeros(size=(2, 3))``), as PyTorch's parser takes it."""
    if kw:
        extra = next((k for k in kw if k != "size"), None)
        if extra is not None:
            raise TypeError(f"{name}() got an unexpected keyword argument '{extra}'")
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (tuple(kw["size"]),)
    return size


def zeros(*size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
    size = _size_kw("zeros", size, kw)
    if any(isinstance(s, (int, np.integer)) and s < 0 for s in _flat_size(size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _finish(np.zeros(_size(size), dtype=_float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
    size = _size_kw("ones", size, kw)
    return _finish(np.ones(_size(size), dtype=_float_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, **kw) -> Tensor:
    size = _size_kw("empty", size, kw)
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    if dtype is None:
        is_float = isinstance(fill_value, float)
        dtype = _dt.DEFAULT_FLOAT if is_float else _array_from(fill_value).dtype
    arr = np.full(_size((size,)), fill_value, dtype=_dt.to_numpy_dtype(dtype))
    return _finish(arr, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    _budget.check_shape((max(int(n), 0), max(int(n if m is None else m), 0)))
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


# -- range factories: ATen's kernels (RangeFactoriesKernel.cpp, RangeFactories.cpp) -------------
# Values are computed as those kernels compute them, in their types, with GCC's FMA contraction of
# ``start + step * i`` in the AVX2/AVX512 builds (none in ATEN_CPU_CAPABILITY=default); measured
# bit for bit against torch 2.13 (tests/engine/ops/test_range_factories.py).

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int8": "int8_t",
            "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def _scalar(v):
    return v.item() if isinstance(v, Tensor) else v


def _to_scalar_type(v, dt: np.dtype):
    """``Scalar::to<T>()``: the value in dtype ``dt`` (a Python number), with c10's overflow
    check; an unsigned type takes -max..max, wrapping negatives, as c10 does."""
    overflow = RuntimeError(f"value cannot be converted to type {_C_NAMES[dt.name]} without "
                            "overflow")
    if dt.kind == "f":
        top = float(np.finfo(dt).max)
        if isinstance(v, builtins.float) and v == v and abs(v) != float("inf") and abs(v) > top:
            raise overflow
        if not isinstance(v, builtins.float) and abs(v) > top:
            raise overflow
        # double -> Half goes through float, as c10::Half's constructor takes a float
        return dt.type(np.float32(v)) if dt == np.float16 else dt.type(v)
    info = np.iinfo(dt)
    if isinstance(v, builtins.float):
        if not (v == v and int(info.min) <= v <= int(info.max)):
            raise overflow
        return int(v)
    low = -int(info.max) if info.min == 0 else int(info.min)
    if not low <= v <= int(info.max):
        raise overflow
    return int(v) % (int(info.max) + 1) if info.min == 0 else int(v)


def _not_for_bool(dt: np.dtype, kernel: str) -> None:
    if dt.kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _check_steps(steps) -> int:
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _budget.check_elements(steps, itemsize=8)
    return steps


def _mul_add(a, b, c, dtype):
    """``a * b + c`` (b, c scalars) as torch's range kernels round it: one FMA in the AVX2/AVX512
    builds, two roundings in the scalar one (engine/random.py decides which runs here)."""
    from .random import _mul_add

    return _mul_add(a, b, c, np.dtype(dtype).type)


def _lanes_add(base, step, lanes: int, acc: np.dtype) -> np.ndarray:
    """``base + k * step`` for k = 0..lanes-1 (a row per base), rounded as ``_mul_add``: for
    doubles, the product's exact error added back (error-free sums; the products are per lane,
    exact in Fractions)."""
    from fractions import Fraction

    from .random import _cpu_capability, _fma32

    k = np.arange(lanes, dtype=acc)
    if acc == np.float32:
        return _fma32(np.tile(k, base.size), step, np.repeat(base, lanes)).reshape(-1, lanes)
    p = k * step
    s = base[:, None] + p
    if _cpu_capability() == "default":
        return s
    e = np.array([float(Fraction(int(kk)) * Fraction(float(step)) - Fraction(float(pp)))
                  for kk, pp in zip(k, p)])
    bp = s - base[:, None]
    t = (base[:, None] - (s - bp)) + (p - bp)
    return s + (t + e)


def _halves(steps: int, start, end, step, dtype):
    """linspace_kernel: ``start + step * i`` below ``steps // 2``, ``end - step * (steps - i - 1)``
    from there, in ``dtype``."""
    half = steps // 2
    i = np.arange(steps)
    if dtype == np.float16:  # c10::Half arithmetic: each operation rounded to half
        return np.concatenate((start + step * i[:half].astype(dtype),
                               end - step * (steps - 1 - i[half:]).astype(dtype)))
    return np.concatenate((_mul_add(i[:half].astype(dtype), step, start, dtype),
                           _mul_add((steps - 1 - i[half:]).astype(dtype), -step, end, dtype)))


def _linspace(start, end, steps: int, dt: np.dtype) -> np.ndarray:
    if steps <= 1:  # torch converts (and checks) start alone, and only to fill one element
        return np.full(steps, _to_scalar_type(_scalar(start), dt) if steps else 0, dt)
    s, e = _to_scalar_type(_scalar(start), dt), _to_scalar_type(_scalar(end), dt)
    if dt.kind == "f":  # the step in the dtype itself
        with np.errstate(all="ignore"):
            step = dt.type(dt.type(e - s) / dt.type(steps - 1))
            return _halves(steps, s, e, step, dt).astype(dt, copy=False)
    # integers: the step and the values in double, truncated back
    step = (float(e) - float(s)) / (steps - 1)
    vals = _halves(steps, np.float64(s), np.float64(e), np.float64(step), np.dtype(np.float64))
    return np.trunc(vals).astype(np.int64).astype(dt)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False) -> Tensor:
    dt = _float_dtype(dtype)
    _not_for_bool(dt, "linspace_cpu")
    return _finish(_linspace(start, end, _check_steps(steps), dt), requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False) -> Tensor:
    dt = _float_dtype(dtype)
    _not_for_bool(dt, "logspace_cpu")
    steps = _check_steps(steps)
    start, end = _scalar(start), _scalar(end)
    if steps <= 1:
        v = _pow(builtins.float(base), builtins.float(start)) if steps else 0
        arr = np.full(steps, v)
    else:
        s, e = _to_scalar_type(start, dt), _to_scalar_type(end, dt)
        # the exponents in double, from the step double(end - start) / (steps - 1) (the
        # difference in the dtype); integers raise float(base); no FMA (RangeFactories.cpp is
        # built without it)
        with np.errstate(all="ignore"):
            if dt.kind == "f":
                diff = np.float64(dt.type(e - s))
            else:  # C++ promotes small integer types to int before subtracting: no wrap
                diff = np.float64(e - s)
                base = np.float32(base)
            step = diff / np.float64(steps - 1)
            half = steps // 2
            i = np.arange(steps, dtype=np.float64)
            expo = np.concatenate((np.float64(s) + step * i[:half],
                                   np.float64(e) - step * (steps - 1 - i[half:])))
            # glibc's pow, as ATen's std::pow (numpy's SIMD power rounds differently)
            arr = np.fromiter(map(_pow, itertools.repeat(builtins.float(base)),
                                  expo.tolist()), np.float64, steps)
    with np.errstate(all="ignore"):
        if dt == np.float16:  # double -> Half goes through float
            arr = arr.astype(np.float32)
        arr = _double_to_int(arr, dt) if dt.kind in "iu" else arr.astype(dt)
    return _finish(arr, requires_grad)


def _double_to_int(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """``static_cast<T>(double)`` as x86-64 does it: truncation by cvttsd2si, to int64 for int64
    and to int32 for the smaller types (whose low bits are kept); out of range or nan gives the
    "integer indefinite" value, the lowest integer."""
    bits = 64 if dt == np.int64 else 32
    a = np.trunc(a)
    ok = (a >= -2.0 ** (bits - 1)) & (a < 2.0 ** (bits - 1))
    v = np.where(ok, a, -2.0 ** (bits - 1)).astype(np.int64)
    return v.astype(dt)


def _pow(base: float, exponent: float) -> float:
    """glibc's pow: inf where math.pow raises OverflowError; for its domain errors the x86
    default NaN, whose sign bit is set."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.copysign(math.inf, base) if base < 0 and exponent % 2 == 1 else math.inf
    except ValueError:
        return -math.nan


def _range_message(v) -> str:
    return f"{v:g}"  # ostream's default formatting of a double


def _arange_size(vals, dt: np.dtype) -> int:
    """compute_arange_size: int64 counts in int64 (start, end, step truncated first), every
    other dtype in double."""
    if dt == np.int64:
        start, end, step = (_to_scalar_type(v, dt) for v in vals)
        if step == 0:
            raise ValueError("step must be nonzero")
        sgn = (step > 0) - (step < 0)
        num = end - start + step - sgn
        size = abs(num) // abs(step) * (1 if (num >= 0) == (step > 0) else -1)
    else:
        start, end, step = (builtins.float(v) for v in vals)
        size = math.ceil((end - start) / step) if (end - start) / step < float("inf") else None
    if size is None or not 0 <= size <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    return int(size)


def _arange_values(n: int, start, step, dt: np.dtype) -> np.ndarray:
    """arange_kernel: ``start + step * i`` in the accumulate type; a contiguous float output is
    written by the vectorised loop, two 32-byte vectors at a time from each thread's first
    element, a vector being ``Vectorized::arange(base, step)`` (base rounded to the dtype); the
    rest of each thread's range element by element."""
    from .ops.reduce_order import GRAIN_SIZE, LANE_BYTES, _chunks, intraop_threads

    if dt.kind in "iu":  # int64 arithmetic (wrapping), cast
        start, step = _to_scalar_type(start, np.dtype(np.int64)), \
            _to_scalar_type(step, np.dtype(np.int64))
        with np.errstate(over="ignore"):
            return (np.int64(start) + np.int64(step) * np.arange(n, dtype=np.int64)).astype(dt)
    acc = np.dtype(np.float32 if dt == np.float16 else np.float64)
    start, step = acc.type(start), acc.type(step)
    lanes = LANE_BYTES // dt.itemsize
    out = np.empty(n, dt)
    with np.errstate(all="ignore"):
        for b, e in _chunks(n, GRAIN_SIZE, intraop_threads()):
            vec = (e - b) // (2 * lanes) * 2 * lanes
            i = np.arange(b, e)
            out[b + vec:e] = _mul_add(i[vec:].astype(acc), step, start, acc).astype(dt)
            if vec:
                first = i[:vec:lanes].astype(acc)
                base = _mul_add(first, step, start, acc).astype(dt).astype(acc)
                out[b:b + vec] = _lanes_add(base, step, lanes, acc).reshape(-1).astype(dt)
    return out


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [_scalar(v) for v in (start, end, step)]
    if dtype is None:
        dtype = _dt.DEFAULT_FLOAT if any(isinstance(v, float) for v in vals) else _dt.DEFAULT_INT
    dt = _dt.to_numpy_dtype(dtype)
    _not_for_bool(dt, "arange_cpu")
    start, end, step = vals
    if builtins.float(step) == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_range_message(start)} -> "
                           f"{_range_message(end)}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = _arange_size(vals, dt)
    _budget.check_elements(n, itemsize=8)
    return _finish(_arange_values(n, start, step, dt), requires_grad)


def _empty_random(size, dtype, requires_grad, default=None, kw=None):
    if kw:
        if set(kw) != {"size"} or size:
            raise TypeError(f"got an unexpected keyword argument '{next(iter(kw))}'")
        size = (tuple(kw["size"]),)
    shape = _size(size)
    dt = (default or _dt.DEFAULT_FLOAT) if dtype is None else _dt.to_numpy_dtype(dtype)
    _budget.check_shape(shape, itemsize=dt.itemsize * 2)  # the array and its draws (again)
    return np.empty(shape, dtype=dt)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False, **kw) -> Tensor:
    """``empty(size).uniform_(0, 1)``: PyTorch's stream (24 random bits a float, 53 a double)."""
    arr = _empty_random(size, dtype, requires_grad, kw=kw)
    _random.uniform(_random._gen(generator), arr.size, 0.0, 1.0, arr.dtype, out=arr.reshape(-1))
    return _finish(arr, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False, **kw) -> Tensor:
    """``empty(size).normal_(0, 1)``: PyTorch's vectorised Box-Muller from 16 elements on, its
    per-element one (with the cached second normal) below."""
    arr = _empty_random(size, dtype, requires_grad, kw=kw)
    _random.normal(_random._gen(generator), arr.size, 0.0, 1.0, arr.dtype, out=arr.reshape(-1))
    return _finish(arr, requires_grad)


def randint(low, high=None, size=None, generator=None, dtype=None, device=None,
            requires_grad=False, out=None, layout=None, pin_memory=False) -> Tensor:
    """``randint(high, size)`` / ``randint(low, high, size)``: ``empty(size).random_(low, high)``
    (int64 unless ``dtype``)."""
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    arr = _empty_random(tuple(size) if isinstance(size, (tuple, list)) else (size,), dtype,
                        requires_grad, default=_dt.DEFAULT_INT)
    arr.reshape(-1)[...] = _random.random_from_to(_random._gen(generator), arr.size, low, high,
                                                  arr.dtype)
    return _finish(arr, requires_grad)


def randperm(n, generator=None, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False) -> Tensor:
    """PyTorch's CPU shuffle (one ``random() % (n - i)`` per swap)."""
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    _budget.check_elements(n, itemsize=16)  # the permutation and its int64 copy
    perm = _random.randperm(_random._gen(generator), n)
    target = _dt.DEFAULT_INT if dtype is None else _dt.to_numpy_dtype(dtype)
    return _finish(perm.astype(target), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False) -> Tensor:
    """``torch.normal``'s overloads: float mean and std with ``size`` fill with N(mean, std);
    with tensors the output is N(0, 1) (N(0, std) for a float std) times std plus mean."""
    g = _random._gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments")
        arr = _empty_random((size,) if isinstance(size, (int, np.integer)) else (tuple(size),),
                            dtype, requires_grad)
        _random.normal(g, arr.size, mean, std, arr.dtype, out=arr.reshape(-1))
        return _finish(arr, requires_grad)
    if st and std._data.size and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    ref = mean._data if mt else std._data
    shape = np.broadcast_shapes(mean._data.shape if mt else (), std._data.shape if st else ())
    dt = ref.dtype if ref.dtype.kind == "f" else _dt.DEFAULT_FLOAT
    n = int(np.prod(shape))
    _budget.check_elements(n, itemsize=dt.itemsize * 3)
    if mt and not st:
        out_arr = _random.normal(g, n, 0.0, std, dt).reshape(shape)
    else:
        out_arr = _random.normal(g, n, 0.0, 1.0, dt).reshape(shape)
        out_arr = out_arr * std._data.astype(dt, copy=False)
    out_arr = out_arr + (mean._data.astype(dt, copy=False) if mt else dt.type(mean))
    # np.require keeps a 0-d result 0-d (np.ascontiguousarray makes it shape (1,))
    return Tensor._wrap(np.require(out_arr.astype(dt, copy=False), requirements="C"))


def _like(fn):
    def like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
        dt = input._data.dtype if dtype is None else _dt.to_numpy_dtype(dtype)
        _budget.check_shape(input._data.shape, itemsize=dt.itemsize)
        return _finish(fn(input._data.shape, dt), requires_grad)

    return like


zeros_like = _like(lambda shape, dt: np.zeros(shape, dtype=dt))
ones_like = _like(lambda shape, dt: np.ones(shape, dtype=dt))
empty_like = zeros_like


def _random_like(name):
    def like(input, dtype=None, device=None, requires_grad=False, memory_format=None,
             layout=None, generator=None):
        dt = input._data.dtype if dtype is None else _dt.to_numpy_dtype(dtype)
        fn = rand if name == "rand" else randn
        return fn(*input._data.shape, generator=generator, dtype=dt, requires_grad=requires_grad)

    like.__name__ = name + "_like"
    return like


rand_like = _random_like("rand")
randn_like = _random_like("randn")


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                 memory_format=None, layout=None, generator=None) -> Tensor:
    if high is None:
        low, high = 0, low
    dt = input._data.dtype if dtype is None else _dt.to_numpy_dtype(dtype)
    return randint(low, high, tuple(input._data.shape), generator=generator, dtype=dt,
                   requires_grad=requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False) -> Tensor:
    dt = input._data.dtype if dtype is None else _dt.to_numpy_dtype(dtype)
    _budget.check_shape(input._data.shape, itemsize=dt.itemsize)
    return _finish(np.full(input._data.shape, fill_value, dtype=dt), requires_grad)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("builtins", "numbers", "np")]


# ``device=`` checked as PyTorch's CPU build checks it (engine/device.py)
from .device import check_default as _check_device  # noqa: E402  (needs the factories above)
from .device import checked_factories  # noqa: E402


def result_shape(fn, args, kwargs):
    """The shape ``randn(*args, **kwargs)`` makes (its size arguments)."""
    return _size(_size_kw(fn.__name__, args, {"size": kwargs["size"]} if "size" in kwargs
                          else {}))


def _factory_out(fn):
    """A factory's ``out=``: made in ``out``'s dtype (unless ``dtype=`` says), written into
    ``out`` (resized to the shape, silently as PyTorch's factories do), ``out`` returned."""
    import functools

    @functools.wraps(fn)
    def factory(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{fn.__name__}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        from .ops.api import write_out

        resized = out.shape != result_shape(fn, args, kwargs) if fn.__name__ == "randn" else False
        write_out(fn.__name__, fn(*args, **kwargs), out, warn=False)
        if resized:
            out._version.value += 1  # PyTorch's randn(out=) of another shape: resize, then fill
        return out

    return factory


for _name in ("zeros", "ones", "empty", "full", "eye", "arange", "linspace", "logspace", "rand",
              "randn", "randint", "randperm", "normal"):
    globals()[_name] = _factory_out(globals()[_name])
del _name

checked_factories(globals(), (
    "as_tensor", "zeros", "ones", "empty", "full", "eye", "arange", "linspace",
    "logspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like", "empty_like",
    "rand_like", "randn_like", "full_like",
))
