"""Arrays survive a round trip through JSON bit for bit, in both encodings."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.files import GraphFileError
from engine.files.codec import decode_array, encode_array, identical

BIG = 10**9


def round_trip(array, **kw):
    text = json.dumps(encode_array(array, **kw), allow_nan=False)
    return decode_array(json.loads(text), "a", max_elements=BIG)


def bits(dtype, *values):
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    return np.array(values, dtype=uint).view(dtype)


SPECIALS = {
    "float32": bits("float32", 0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFF800001, 0x7F800000,
                    0xFF800000, 0x80000000, 0x00000001, 0x7F7FFFFF),
    "float64": bits("float64", 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                    0x8000000000000000, 0x0000000000000001, 0x7FEFFFFFFFFFFFFF),
    "float16": bits("float16", 0x7E00, 0xFE00, 0x7C01, 0x8000, 0x0001, 0x7BFF),
}


@pytest.mark.parametrize("dtype", sorted(SPECIALS))
@pytest.mark.parametrize("list_max", [10**6, 0])
def test_special_floats_keep_their_bits(dtype, list_max):
    array = SPECIALS[dtype]
    back = round_trip(array, list_max=list_max)
    assert back.dtype == array.dtype
    assert back.view(f"u{array.itemsize}").tolist() == array.view(f"u{array.itemsize}").tolist()


def test_special_values_are_spelled_as_documented():
    data = encode_array(np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.1],
                                 dtype=np.float32))["data"]
    assert data[:4] == ["nan", "-nan", "inf", "-inf"]
    assert str(data[4]) == "-0.0"
    assert data[5] == 0.1  # the shortest spelling of float32(0.1), not 0.10000000149011612


def test_nan_with_payload_is_written_as_bits():
    assert encode_array(bits("float32", 0x7FC00005))["data"] == ["nan:0x7fc00005"]


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from(["float16", "float32", "float64", "int64", "int8", "uint8",
                                   "int32", "bool"]),
                  hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
                  elements=None),
       st.booleans())
def test_any_array_round_trips_exactly(array, as_b64):
    back = round_trip(array, list_max=0 if as_b64 else 10**6)
    assert identical(back, array)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_float32_bit_pattern_round_trips(pattern):
    array = bits("float32", pattern)
    assert round_trip(array).view(np.uint32)[0] == pattern


def test_float_list_decoding_matches_known_values():
    back = decode_array({"dtype": "float32", "shape": [2, 2], "data": [1, -0.0, "inf", 2.5]},
                        "a", max_elements=10)
    assert back.shape == (2, 2)
    assert back[0, 0] == 1.0 and np.signbit(back[0, 1]) and np.isposinf(back[1, 0])


def test_identical_tells_dtypes_shapes_and_nan_payloads_apart():
    a = np.array([1.0, 2.0], np.float32)
    assert identical(a, a.copy())
    assert not identical(a, a.astype(np.float64))
    assert not identical(a, a.reshape(2, 1))
    assert not identical(bits("float32", 0x7FC00000), bits("float32", 0xFFC00000))
    assert not identical(np.array([0.0]), np.array([-0.0]))


@pytest.mark.parametrize("value, field, fragment", [
    ({"dtype": "float32", "shape": [2], "data": [1.0]}, "a.data", "1 elements"),
    ({"dtype": "int8", "shape": [1], "data": [300]}, "a.data[0]", "out of range for int8"),
    ({"dtype": "float32", "shape": [1], "data": [1e39]}, "a.data[0]", "out of range"),
    ({"dtype": "bool", "shape": [1], "data": [1]}, "a.data[0]", "expected true or false"),
    ({"dtype": "int64", "shape": [1], "data": [1.5]}, "a.data[0]", "expected an integer"),
    ({"dtype": "float32", "shape": [1], "data": ["nan:0x3f800000"]}, "a.data[0]", "not the bits"),
    ({"dtype": "float32", "shape": [1], "b64": "AAAA"}, "a.b64", "3 bytes"),
    ({"dtype": "float32", "shape": [1], "b64": "!!"}, "a.b64", "base64"),
    ({"dtype": "float32", "shape": [1], "data": [1.0], "b64": "AACAPw=="}, "a", "exactly one"),
    ({"dtype": "float32", "shape": [1]}, "a", "exactly one"),
    ({"dtype": "float32", "shape": [-1], "data": []}, "a.shape[0]", "expected a size"),
    ({"dtype": "float32", "shape": [1], "data": [1.0], "unit": "m"}, "a.unit", "unknown field"),
    ({"dtype": "bool", "shape": [1], "b64": "Ag=="}, "a.b64", "0 or 1"),
])
def test_bad_arrays_name_the_field(value, field, fragment):
    with pytest.raises(GraphFileError) as info:
        decode_array(value, "a", max_elements=100)
    assert info.value.field == field
    assert fragment in str(info.value)


def test_the_element_limit_is_checked_from_the_shape_before_allocating():
    with pytest.raises(GraphFileError, match="larger than the limit"):
        decode_array({"dtype": "float64", "shape": [10**6, 10**6], "b64": ""}, "a",
                     max_elements=10**7)
