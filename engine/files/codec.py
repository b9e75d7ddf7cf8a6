"""Exact array encoding for graph files.

An array is a JSON object ``{"dtype": "float32", "shape": [2, 3], "data": [...]}`` with ``data``
the elements in row-major (C) order. Floats are written in the shortest decimal that reads back
to the same bits; values JSON cannot spell are strings: ``"nan"``, ``"-nan"`` (sign bit set),
``"inf"``, ``"-inf"``, and ``"nan:0x7fc00001"`` (the raw bits of a NaN with a payload). ``-0.0``
is written as ``-0.0``. Large arrays use ``"b64"`` (the little-endian bytes, base64) instead of
``data``. Either way a round trip is bit-exact.

``decode_array`` checks everything and raises GraphFileError naming the field path.
"""

from __future__ import annotations

import base64
import binascii
import math

import numpy as np

from .errors import GraphFileError

DTYPES = ("float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")
ARRAY_KEYS = ("dtype", "shape", "data", "b64")
# Above this many elements an array is written as base64 bytes: a decimal list of a million
# floats is slow to write and read, and nobody reads it by eye.
LIST_ENCODING_MAX = 4096
MAX_RANK = 32

_UINT_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _nan_bits(dtype: np.dtype) -> int:
    return int(np.array(np.nan, dtype).view(_UINT_OF_SIZE[dtype.itemsize]))


def _encode_float(x: np.floating, dtype: np.dtype, canonical_nan: int):
    if math.isfinite(x):
        # The shortest repr for this dtype, if parsing it as a double and rounding to the dtype
        # gives the same bits (decode does exactly that); else the double, which is always exact.
        short = float(str(x))
        return short if dtype.type(short) == x else float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    bits = int(np.array(x, dtype).view(_UINT_OF_SIZE[dtype.itemsize]))
    if bits == canonical_nan:
        return "nan"
    sign = 1 << (dtype.itemsize * 8 - 1)
    if bits == canonical_nan | sign:
        return "-nan"
    return f"nan:{bits:#0{dtype.itemsize * 2 + 2}x}"


def encode_array(array: np.ndarray, *, list_max: int = LIST_ENCODING_MAX) -> dict:
    """Encode ``array`` as a JSON-ready dict (see the module docstring).

    Parameters
    ----------
    array : numpy.ndarray
        Of one of ``DTYPES``.
    list_max : int
        Arrays with more elements are written as base64 bytes.
    """
    array = np.asarray(array)
    dtype = array.dtype
    if dtype.name not in DTYPES:
        raise GraphFileError(f"arrays of dtype {dtype.name} cannot be saved")
    out = {"dtype": dtype.name, "shape": list(array.shape)}
    flat = array.reshape(-1)
    if flat.size > list_max:
        out["b64"] = base64.b64encode(flat.astype(dtype.newbyteorder("<")).tobytes()).decode()
    elif dtype.kind == "f":
        nan = _nan_bits(dtype)
        out["data"] = [_encode_float(x, dtype, nan) for x in flat]
    elif dtype.kind == "b":
        out["data"] = [bool(x) for x in flat]
    else:
        out["data"] = [int(x) for x in flat]
    return out


def is_encoded_array(value) -> bool:
    """Whether a parsed JSON value has the shape of an encoded array (an object with dtype)."""
    return isinstance(value, dict) and "dtype" in value and "shape" in value


def describe(value) -> str:
    """A parsed JSON value as a short phrase for error messages (``"x"``, ``a list``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return str(value)


def _decode_float_element(x, dtype: np.dtype, path: str):
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise GraphFileError(f"expected a number, got {describe(x)}", field=path)
    if isinstance(x, int):
        try:
            return float(x)
        except OverflowError:
            raise GraphFileError(f"{describe(x)[:20]}... is out of range for {dtype.name}",
                                 field=path) from None
    if isinstance(x, float):
        if not math.isfinite(x):
            raise GraphFileError("non-finite numbers must be written as strings", field=path)
        return x
    if x in ("nan", "-nan", "inf", "-inf"):
        return None  # filled in by bits below
    if x.startswith("nan:0x"):
        return None
    raise GraphFileError(
        f'expected a number or one of "nan", "-nan", "inf", "-inf", got {describe(x)}', field=path)


def _special_bits(x: str, dtype: np.dtype, path: str) -> int:
    width = dtype.itemsize * 8
    sign = 1 << (width - 1)
    if x == "inf":
        return int(np.array(np.inf, dtype).view(_UINT_OF_SIZE[dtype.itemsize]))
    if x == "-inf":
        return int(np.array(-np.inf, dtype).view(_UINT_OF_SIZE[dtype.itemsize]))
    if x == "nan":
        return _nan_bits(dtype)
    if x == "-nan":
        return _nan_bits(dtype) | sign
    try:
        bits = int(x[4:], 16)
    except ValueError:
        raise GraphFileError(f"bad NaN bits {describe(x)}", field=path) from None
    value = np.array(bits if bits < 2**width else 0, _UINT_OF_SIZE[dtype.itemsize]).view(dtype)
    if bits >= 2**width or not np.isnan(value):
        raise GraphFileError(f"{describe(x)} is not the bits of a {dtype.name} NaN", field=path)
    return bits


def _decode_data(data: list, dtype: np.dtype, path: str) -> np.ndarray:
    if dtype.kind == "b":
        for i, x in enumerate(data):
            if not isinstance(x, bool):
                raise GraphFileError(f"expected true or false, got {describe(x)}",
                                     field=f"{path}[{i}]")
        return np.array(data, dtype=dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        for i, x in enumerate(data):
            if isinstance(x, bool) or not isinstance(x, int):
                raise GraphFileError(f"expected an integer, got {describe(x)}",
                                     field=f"{path}[{i}]")
            if not info.min <= x <= info.max:
                raise GraphFileError(f"{x} is out of range for {dtype.name}", field=f"{path}[{i}]")
        return np.array(data, dtype=dtype)
    values = [_decode_float_element(x, dtype, f"{path}[{i}]") for i, x in enumerate(data)]
    specials = [i for i, v in enumerate(values) if v is None]
    for i in specials:
        values[i] = 0.0
    with np.errstate(over="ignore"):
        out = np.array(values, dtype=np.float64).astype(dtype)
    # a finite double can still overflow a float32/float16 to inf: the file is wrong, not exact
    overflowed = np.flatnonzero(~np.isfinite(out))
    if overflowed.size:
        i = int(overflowed[0])
        raise GraphFileError(f"{data[i]!r} is out of range for {dtype.name}", field=f"{path}[{i}]")
    if specials:
        bits = out.view(_UINT_OF_SIZE[dtype.itemsize])
        for i in specials:
            bits[i] = _special_bits(data[i], dtype, f"{path}[{i}]")
    return out


def decode_array(value, path: str, *, max_elements: int) -> np.ndarray:
    """Decode an encoded array, checking every part; errors name the field under ``path``.

    Parameters
    ----------
    value : object
        The parsed JSON value.
    path : str
        The field path of ``value`` (for error messages).
    max_elements : int
        The largest element count accepted (checked before anything is allocated).
    """
    if not isinstance(value, dict):
        raise GraphFileError(f"expected an array object, got {describe(value)}", field=path)
    for key in value:
        if key not in ARRAY_KEYS:
            raise GraphFileError(f"unknown field (an array has {', '.join(ARRAY_KEYS)})",
                                 field=f"{path}.{key}")
    if "dtype" not in value:
        raise GraphFileError("missing required field", field=f"{path}.dtype")
    if value["dtype"] not in DTYPES:
        raise GraphFileError(f"expected one of {', '.join(DTYPES)}, got {describe(value['dtype'])}",
                             field=f"{path}.dtype")
    dtype = np.dtype(value["dtype"])
    if "shape" not in value:
        raise GraphFileError("missing required field", field=f"{path}.shape")
    shape = value["shape"]
    if not isinstance(shape, list):
        raise GraphFileError(f"expected a list of sizes, got {describe(shape)}",
                             field=f"{path}.shape")
    if len(shape) > MAX_RANK:
        raise GraphFileError(f"{len(shape)} dimensions; at most {MAX_RANK}", field=f"{path}.shape")
    size = 1
    for i, n in enumerate(shape):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise GraphFileError(f"expected a size (an integer >= 0), got {describe(n)}",
                                 field=f"{path}.shape[{i}]")
        size *= n
    if size > max_elements:
        raise GraphFileError(f"array of {size} elements is larger than the limit of "
                             f"{max_elements}", field=f"{path}.shape")
    has_data, has_b64 = "data" in value, "b64" in value
    if has_data == has_b64:
        raise GraphFileError('expected exactly one of "data" or "b64"', field=path)
    if has_b64:
        flat = _decode_b64(value["b64"], dtype, size, f"{path}.b64")
    else:
        data = value["data"]
        if not isinstance(data, list):
            raise GraphFileError(f"expected a flat list of elements, got {describe(data)}",
                                 field=f"{path}.data")
        if len(data) != size:
            raise GraphFileError(f"{len(data)} elements for shape {shape} (expected {size})",
                                 field=f"{path}.data")
        flat = _decode_data(data, dtype, f"{path}.data")
    return flat.reshape(shape)


def _decode_b64(text, dtype: np.dtype, size: int, path: str) -> np.ndarray:
    if not isinstance(text, str):
        raise GraphFileError(f"expected base64 text, got {describe(text)}", field=path)
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise GraphFileError("not valid base64", field=path) from None
    if len(raw) != size * dtype.itemsize:
        raise GraphFileError(f"{len(raw)} bytes for {size} elements of {dtype.name} "
                             f"(expected {size * dtype.itemsize})", field=path)
    flat = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
    if dtype.kind == "b" and raw.strip(b"\x00\x01"):
        raise GraphFileError("bool bytes must be 0 or 1", field=path)
    return flat


def identical(a, b) -> bool:
    """Whether two values are the same, arrays bit for bit (dtype, shape and bytes).

    Works through dicts, lists, tuples and dataclasses (the fields that compare); other values
    compare with ``==``.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(identical(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(identical(x, y) for x, y in zip(a, b)))
    if hasattr(a, "__dataclass_fields__") and type(a) is type(b):
        return all(identical(getattr(a, name), getattr(b, name))
                   for name, f in a.__dataclass_fields__.items() if f.compare)
    return type(a) is type(b) and a == b
