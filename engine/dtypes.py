"""PyTorch's dtypes and type promotion, over numpy dtypes."""

from __future__ import annotations

import builtins

import numpy as np


class dtype:
    """A tensor element type; prints as PyTorch does (``torch.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "title", "c_name")

    def __init__(self, name: str, np_dtype, title: str, c_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.title = title  # PyTorch's ScalarType name, as its messages spell it ("Float")
        self.c_name = c_name  # the C++ type's name, in other messages ("float")
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = False
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, "Half", "c10::Half")
float32 = float = dtype("float32", np.float32, "Float", "float")
float64 = double = dtype("float64", np.float64, "Double", "double")
int8 = dtype("int8", np.int8, "Char", "signed char")
uint8 = dtype("uint8", np.uint8, "Byte", "unsigned char")
int16 = short = dtype("int16", np.int16, "Short", "short int")
int32 = int = dtype("int32", np.int32, "Int", "int")
int64 = long = dtype("int64", np.int64, "Long", "long int")
bool = dtype("bool", np.bool_, "Bool", "bool")

ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, bool)
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL}


def _by_name(name: str) -> dtype:
    return _NAMES[name]


# The one map from a dtype to PyTorch's names for it (every message and repr reads these).

def scalar_type_name(np_dtype) -> str:
    """PyTorch's ScalarType name (``Float``, ``Long``...); numpy's name for a dtype it lacks."""
    d = _FROM_NP.get(np.dtype(np_dtype))
    return d.title if d is not None else np.dtype(np_dtype).name


def c_type_name(np_dtype) -> str:
    """The C++ name PyTorch's messages use (``float``, ``long int``, ``c10::Half``)."""
    d = _FROM_NP.get(np.dtype(np_dtype))
    return d.c_name if d is not None else np.dtype(np_dtype).name


def tensor_type_name(np_dtype, default: str = "torch.Tensor") -> str:
    """The legacy tensor type (``torch.FloatTensor``), as ``Tensor.type()`` gives it."""
    d = _FROM_NP.get(np.dtype(np_dtype))
    return f"torch.{d.title}Tensor" if d is not None else default


def from_numpy_dtype(np_dtype) -> dtype:
    """The engine dtype for a numpy dtype (TypeError, as PyTorch, for unsupported ones)."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The "
            "only supported types are: float64, float32, float16, complex64, complex128, int64, "
            "int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
        ) from None


def to_numpy_dtype(d) -> np.dtype:
    """Accept an engine dtype, a numpy dtype or a Python type (as PyTorch's ``dtype=`` does)."""
    if isinstance(d, dtype):
        return d.np
    if d is builtins.float:
        return float64.np
    if d is builtins.int:
        return int64.np
    if d is builtins.bool:
        return bool.np
    return np.dtype(d)


DEFAULT_FLOAT = np.dtype(np.float32)
DEFAULT_INT = np.dtype(np.int64)

# Categories for promotion: bool < integer < floating.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's ``promote_types``: across categories the higher category's dtype wins unchanged
    (int64 with float32 is float32, where numpy says float64); within one, numpy's rule holds."""
    if a == b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def result_type(*operands) -> np.dtype:
    """PyTorch's result type for a mix of arrays (tensors' data) and Python scalars.

    Dimensioned tensors decide first; zero-dim tensors, then Python scalars, win only when they are
    of a higher category (bool < integer < floating): a zero-dim tensor then gives its own dtype, a
    Python scalar its category's default (int64, float32).
    """
    dim_t = zero_t = scalar = None
    for op in operands:
        if isinstance(op, np.ndarray):
            if op.ndim:
                dim_t = op.dtype if dim_t is None else promote_types(dim_t, op.dtype)
            else:
                zero_t = op.dtype if zero_t is None else promote_types(zero_t, op.dtype)
        else:
            if op.__class__ is builtins.bool or isinstance(op, np.bool_):
                s = bool.np
            elif isinstance(op, (builtins.int, np.integer)):
                s = DEFAULT_INT
            else:
                s = DEFAULT_FLOAT
            if scalar is None or _CATEGORY[s.kind] > _CATEGORY[scalar.kind]:
                scalar = s
    result = dim_t
    if zero_t is not None and (result is None or _CATEGORY[zero_t.kind] > _CATEGORY[result.kind]):
        result = zero_t
    if scalar is not None and (result is None or _CATEGORY[scalar.kind] > _CATEGORY[result.kind]):
        result = scalar
    return result
