"""``state.same_array``, the snapshot's "did this value change" test, against numpy's own
``array_equal(equal_nan=True)`` on the values that make bytes and numbers disagree: -0.0 and 0.0,
NaNs of other payloads, bools stored as other nonzero bytes, complex NaNs; on both sides of the
sizes where it compares bytes, Python lists or whole arrays."""

from __future__ import annotations

import numpy as np
import pytest

from engine.session.state import _BYTES_COMPARED, _LISTS_COMPARED, same_array

SIZES = (1, 3, _LISTS_COMPARED, _LISTS_COMPARED + 1, 5000)
SPECIALS = (0.0, -0.0, np.nan, np.inf, -np.inf, 1.5, -2.25)


def _other_nan(a: np.ndarray) -> np.ndarray:
    """``a`` with every NaN's payload changed (the same numbers to ``array_equal``)."""
    out = a.copy()
    bits = out.view(np.uint32 if out.dtype == np.float32 else np.uint64)
    bits[np.isnan(out)] |= 1  # a quiet NaN with another payload bit set
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", SIZES)
def test_floats_agree_with_array_equal(dtype, size):
    rng = np.random.default_rng(size)
    for _ in range(40):
        a = rng.choice(np.array(SPECIALS, dtype), size=size)
        b = a.copy()
        change = rng.integers(0, 4)
        if change == 1:  # zeros of the other sign
            b = np.where(a == 0, np.where(np.signbit(a), 0.0, -0.0), a).astype(dtype)
        elif change == 2:
            b = _other_nan(b)
        elif change == 3:  # one number really differs
            b[rng.integers(0, size)] = 7.0
        assert same_array(a, b) == np.array_equal(a, b, equal_nan=True), (a, b)


@pytest.mark.parametrize("size", SIZES)
def test_bools_stored_as_other_bytes_are_the_same(size):
    a = np.ones(size, dtype=bool)
    b = np.frombuffer(np.full(size, 2, np.uint8).tobytes(), dtype=bool)
    assert a.tobytes() != b.tobytes()
    assert same_array(a, b)
    c = a.copy()
    c[-1] = False
    assert not same_array(a, c)


def test_complex_nans_and_signed_zeros():
    a = np.array([complex(0.0, np.nan), complex(-0.0, 1.0)])
    b = np.array([complex(0.0, np.nan), complex(0.0, 1.0)])
    b = b.copy()
    b.view(np.uint64)[1] |= 1  # the first NaN's payload
    assert same_array(a, b) == np.array_equal(a, b, equal_nan=True)


def test_non_contiguous_and_multi_dimensional():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = base[:, ::2]
    b = np.ascontiguousarray(a)
    b[0, 0] = -0.0  # 0.0 in a
    assert same_array(a, b)
    b[3, 2] += 1
    assert not same_array(a, b)


def test_integers_compare_by_bytes():
    a = np.arange(10, dtype=np.int64)
    assert same_array(a, a.copy())
    b = a.copy()
    b[4] = -4
    assert not same_array(a, b)


def test_the_size_limits_are_ordered():
    assert 1 < _LISTS_COMPARED < _BYTES_COMPARED
