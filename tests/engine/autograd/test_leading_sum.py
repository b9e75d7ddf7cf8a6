"""The gradient of a broadcast input summed over its leading dimensions (a bias's): numpy's sum,
bit for bit, whether engine/_native/sums.c ``column_sum`` computes it or numpy does."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import _native
from engine.autograd import node as node_module

_reduce_to = node_module._reduce_to


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tolist(), a.shape, a.dtype


def _case(rng, shape, dtype):
    g = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-4, 4, shape)).astype(dtype)
    g[rng.random(shape) < 0.05] = -0.0  # a column of -0.0 sums to +0.0, as numpy's does
    return g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lead", [(1,), (2,), (64,), (129,), (3, 7), (5000,)])
@pytest.mark.parametrize("tail", [(1,), (2,), (16,), (17,), (3, 4), (1, 5), (5, 1)])
def test_leading_sum_is_numpys(dtype, lead, tail):
    rng = np.random.default_rng(len(lead) * 100 + sum(lead) + sum(tail))
    g = _case(rng, lead + tail, dtype)
    want = np.add.reduce(g, axis=tuple(range(len(lead))))
    assert _bits(_reduce_to(g, tail, np.dtype(dtype))) == _bits(want)


def test_signed_zeros_and_non_finite_values():
    g = np.array([[-0.0, np.inf, np.nan, -0.0], [-0.0, -np.inf, 1.0, 2.0]], np.float32)
    want = np.add.reduce(g, axis=(0,))
    got = _reduce_to(g, (4,), np.dtype(np.float32))
    assert _bits(got) == _bits(want)
    assert not np.signbit(got[0])


@pytest.mark.parametrize("make", [
    lambda g: g.T.copy().T,  # column-major
    lambda g: g[::-1],  # negative strides
    lambda g: np.broadcast_to(g[:1], g.shape),  # a broadcast view (stride 0)
    lambda g: g.astype(np.float16),  # not float32/float64: numpy's own sum
])
def test_other_layouts_and_dtypes_take_numpys_sum(make):
    g = make(_case(np.random.default_rng(3), (40, 6), np.float32))
    want = np.add.reduce(g, axis=(0,))
    assert _bits(_reduce_to(g, (6,), g.dtype)) == _bits(want)


@pytest.mark.skipif(_native.sums() is None, reason="engine/_native/sums.c not built")
def test_column_sum_refuses_mismatched_buffers():
    column_sum = _native.sums().column_sum
    with pytest.raises(ValueError):
        column_sum(np.ones((4, 3), np.float32), np.empty(3, np.float64))
    with pytest.raises(ValueError):
        column_sum(np.ones((4, 3), np.float32), np.empty(5, np.float32))
    with pytest.raises(ValueError):
        column_sum(np.ones((4, 3), np.int32), np.empty(3, np.int32))
    with pytest.raises(TypeError):
        column_sum(np.ones(3))


def test_a_bias_gradient_equals_torchs_to_rounding():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    h, b = rng.standard_normal((64, 16)).astype(np.float32), rng.standard_normal(16).astype(
        np.float32)
    grads = []
    for lib in (engine, torch):
        bias = lib.tensor(b, requires_grad=True)
        ((lib.tensor(h) + bias).tanh() ** 2).sum().backward()
        grads.append(bias.grad.detach().numpy() if lib is torch else bias.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)
