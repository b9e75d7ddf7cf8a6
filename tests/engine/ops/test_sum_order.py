"""float32/float64 sum and mean add in PyTorch's order (engine/ops/reduce_order.py): bit for bit
against torch over 1-D sizes 1..5000 and past the 32768-element thread split, 2-D and 3-D shapes
with every dim set and keepdim, transposed and sliced inputs, and the mean and MSE built on it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import engine
from tests.engine.differential import threads_as_torchs

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures(threads_as_torchs.__name__)

RNG = np.random.default_rng(14)


def _same_bits(t_result, e_result):
    a, b = t_result.detach().numpy(), e_result.detach().numpy()
    assert (a.dtype, a.shape) == (b.dtype, b.shape)
    same = a.tobytes() == b.tobytes()  # a bool: pytest would diff megabytes of bytes
    assert same, f"torch {a!r} != engine {b!r}"


def _both(data, view=lambda t: t):
    return view(torch.from_numpy(data)), view(engine.tensor(data))


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_full_sums_of_every_size_up_to_5000(dtype):
    data = RNG.standard_normal(5000).astype(dtype)
    for n in itertools.chain(range(1, 700), range(700, 5001, 37), (4999, 5000)):
        t, e = _both(data[:n].copy())
        _same_bits(t.sum(), e.sum())


@pytest.mark.parametrize("n", (32767, 32768, 32769, 65537, 100003))
def test_full_sums_across_threads(n):
    t, e = _both(RNG.standard_normal(n).astype(np.float32))
    _same_bits(t.sum(), e.sum())


SHAPES = [(3, 5), (7, 9), (64, 1), (1, 64), (100, 20), (20, 100), (33, 65), (128, 257),
          (300, 200), (1000, 3), (3, 1000), (17, 4096)]


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("shape", SHAPES)
def test_sums_over_each_dim(shape, dtype):
    data = RNG.standard_normal(shape).astype(dtype)
    for view in (lambda x: x, lambda x: x.t()):
        t, e = _both(data, view)
        _same_bits(t.sum(), e.sum())
        for dim, keepdim in itertools.product((0, 1, -1, (0, 1)), (False, True)):
            _same_bits(t.sum(dim, keepdim=keepdim), e.sum(dim, keepdim=keepdim))
            _same_bits(t.mean(dim, keepdim=keepdim), e.mean(dim, keepdim=keepdim))


@pytest.mark.parametrize("shape", [(3, 4, 5), (8, 9, 10), (16, 33, 7), (40, 50, 30)])
def test_sums_of_3d_permuted_and_sliced(shape):
    data = RNG.standard_normal(shape).astype(np.float32)
    views = (lambda x: x, lambda x: x.permute(2, 0, 1), lambda x: x[:, ::2, :])
    for view in views:
        t, e = _both(data, view)
        for dim in (None, 0, 1, 2, (0, 1), (0, 2), (1, 2), (0, 1, 2)):
            if dim is None:
                _same_bits(t.sum(), e.sum())
            else:
                _same_bits(t.sum(dim), e.sum(dim))


def test_mean_and_mse_are_torchs_sum_then_division():
    a = RNG.standard_normal(2000).astype(np.float32)
    b = np.sin(RNG.standard_normal(2000)).astype(np.float32)
    (ta, ea), (tb, eb) = _both(a), _both(b)
    _same_bits(ta.mean(), ea.mean())
    _same_bits(ta.mean(dtype=torch.float64), ea.mean(dtype=engine.float64))
    _same_bits(ta.sum(dtype=torch.float64), ea.sum(dtype=engine.float64))
    for reduction in ("sum", "mean"):
        _same_bits(torch.nn.functional.mse_loss(ta, tb, reduction=reduction),
                   engine.nn.functional.mse_loss(ea, eb, reduction=reduction))
        _same_bits(torch.nn.MSELoss(reduction=reduction)(ta[:64], tb[:64]),
                   engine.nn.MSELoss(reduction=reduction)(ea[:64], eb[:64]))


def test_signed_zeros_and_specials():
    for data in ([-0.0], [-0.0] * 40, [np.inf, 1.0, -np.inf], [np.nan, 1.0], [3e38, 3e38, -3e38]):
        t, e = _both(np.array(data, np.float32))
        _same_bits(t.sum(), e.sum())


def _compiled():
    from engine.ops import reduce_order

    if reduce_order._SUMS is None:
        pytest.skip("the compiled kernel is not built here")
    return reduce_order


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_the_compiled_loop_adds_as_the_numpy_order_and_as_torch(dtype):
    """engine/_native/sums.c against reduce_order's numpy code and torch, every size up to 5,000
    and a few past torch's thread split (the loop on one thread's part), values of mixed
    magnitudes so that any other order rounds differently."""
    reduce_order = _compiled()
    sizes = itertools.chain(range(1, 5001), (16383, 16384, 32767, 50002, 65536, 100003))
    for n in sizes:
        v = (RNG.standard_normal(n) * 10.0 ** RNG.uniform(-4, 4, n)).astype(dtype)
        native, numpy_order = reduce_order._loop_sum(v), reduce_order._loop_sum(v, native=False)
        assert native.tobytes() == numpy_order.tobytes() and native.dtype == dtype, n
        if n < 32768:  # one thread's loop is the whole sum below the split
            assert native.tobytes() == torch.from_numpy(v).sum().numpy().tobytes(), n


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_the_compiled_full_sum_and_mean_are_the_numpy_ones(dtype, monkeypatch):
    """The full sum and mean in Python floats around the compiled loop (reduce_order._full)
    against the numpy scalars' arithmetic, signed zeros, subnormals and specials included."""
    reduce_order = _compiled()
    tiny = np.finfo(dtype).smallest_subnormal
    cases = [np.array(c, dtype) for c in (
        [-0.0] * 9, [tiny] * 8, [tiny * 3] * 9 + [-tiny], [np.inf] * 8, [np.nan] + [1.0] * 8,
        [np.finfo(dtype).max] * 8)]
    cases += [(RNG.standard_normal(n) * 10.0 ** RNG.uniform(-30, 30, n)).astype(dtype)
              for n in range(1, 3000, 7)]
    for x in cases:
        native = [reduce_order._full(x, mean) for mean in (False, True)]
        monkeypatch.setattr(reduce_order, "_SUMS", None)
        numpy_order = [reduce_order._full(x, mean) for mean in (False, True)]
        monkeypatch.undo()
        for a, b in zip(native, numpy_order):
            assert (a.tobytes(), a.dtype, a.shape) == (b.tobytes(), b.dtype, ()), x
