"""linspace, logspace and arange bit for bit against PyTorch: every dtype, sign and step, the
lengths at each kernel boundary (steps 0 and 1, the halfway split, the 32-byte vectors of arange's
loop and its per-thread chunks above 32768 elements), and their errors and flags."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import engine
from tests.engine.differential import check, threads_as_torchs

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.usefixtures(threads_as_torchs.__name__)
DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8")


def _bits(fn):
    """``fn(torch)`` and ``fn(engine)``: the same dtype, shape and bytes (or the same error)."""
    def run(mod):
        try:
            return fn(mod).numpy(), None
        except Exception as e:  # the error is part of what must agree
            return None, (type(e).__name__, str(e).splitlines()[0])

    (t, te), (g, ge) = run(torch), run(engine)
    assert te == ge
    if te is None:
        assert (t.dtype, t.shape) == (g.dtype, g.shape)
        same = t.tobytes() == g.tobytes()  # a bool: pytest would diff megabytes of bytes
        assert same, f"{int(np.sum(t != g))} of {t.size} differ"


def _cases(seed, n):
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        s, e = rnd.uniform(-300, 300), rnd.uniform(-300, 300)
        if rnd.random() < 0.3:
            s, e = int(s), int(e)
        steps = rnd.choice([0, 1, 2, 3, 4, 5, rnd.randint(2, 64), rnd.randint(2, 5000)])
        out.append((s, e, steps))
    return out


def test_the_tutorials_linspace_is_torchs():
    _bits(lambda t: t.linspace(-math.pi, math.pi, 2000))


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_bits(dtype):
    for s, e, n in _cases(1, 40):
        _bits(lambda t, s=s, e=e, n=n: t.linspace(s, e, n, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("dtype", ("float32", "float64", "float16", "int64", "uint8"))
def test_logspace_bits(dtype):
    for s, e, n in _cases(2, 25):
        for base in (10.0, 2.0, 1.1):
            _bits(lambda t, s=s, e=e, n=n, b=base: t.logspace(s / 100, e / 100, n, base=b,
                                                             dtype=getattr(t, dtype)))


@pytest.mark.parametrize("dtype", DTYPES + (None,))
def test_arange_bits(dtype):
    rnd = random.Random(3)
    for _ in range(40):
        s = rnd.choice([0, 3, -7, rnd.uniform(-300, 300)])
        step = rnd.choice([1, 2, -1, -3, 0.1, -0.37, 0.5, rnd.uniform(-5, 5)])
        e = s + step * rnd.choice([1, 7, 15, 16, 17, 33, 100, 2001])
        _bits(lambda t, s=s, e=e, step=step: t.arange(
            s, e, step, dtype=None if dtype is None else getattr(t, dtype)))


@pytest.mark.parametrize("n", (32767, 32768, 32769, 70001))
def test_arange_across_threads(n):
    # above GRAIN_SIZE each thread starts its own vectorised loop at its first element
    _bits(lambda t: t.arange(-1.3, -1.3 + 0.0123 * n, 0.0123))
    _bits(lambda t: t.arange(0.5, 0.5 + 0.0123 * n, 0.0123, dtype=t.float64))


@pytest.mark.parametrize("snippet", [
    lambda t: t.linspace(0, 1, 1),
    lambda t: t.linspace(3.5, 7, 1, dtype=t.int64),
    lambda t: t.linspace(-245, 1, 1, dtype=t.uint8),
    lambda t: t.linspace(-5, 5, 2, dtype=t.uint8),
    lambda t: t.linspace(float("inf"), 1, 3),
    lambda t: t.linspace(1e40, 1, 0),
    lambda t: t.linspace(0, 1, -1),
    lambda t: t.linspace(1e40, 1, 3),
    lambda t: t.linspace(-5.0, 5, 2, dtype=t.uint8),
    lambda t: t.linspace(70000.0, 1, 3, dtype=t.float16),
    lambda t: t.linspace(0, 1, 3, dtype=t.bool),
    lambda t: t.linspace(0, 1, 5, requires_grad=True),
    lambda t: t.linspace(t.tensor(0.0), t.tensor(1.0), 5),
    lambda t: t.linspace(0, 1, 5, dtype=t.float64),
    lambda t: t.logspace(0, 400, 3, dtype=t.float64),
    lambda t: t.logspace(0, 1.5, 3, base=-2.0, dtype=t.float64),
    lambda t: t.logspace(2, 3, 1, dtype=t.int32),
    lambda t: t.arange(0.5, 5.5, 1.3, dtype=t.int64),
    lambda t: t.arange(0.5, 5.5, 1.3, dtype=t.int32),
    lambda t: t.arange(0.5, 5.5, 0.5, dtype=t.int64),
    lambda t: t.arange(0.5, 5.5, 0.5, dtype=t.int32),
    lambda t: t.arange(10, 0, -1.5, dtype=t.int64),
    lambda t: t.arange(-5, 5, 2, dtype=t.uint8),
    lambda t: t.arange(0, 70000, 1, dtype=t.float16),
    lambda t: t.arange(5, 0, 1),
    lambda t: t.arange(0, float("inf"), 1),
    lambda t: t.arange(0, float("nan"), 1),
    lambda t: t.arange(0, 5, 0.0),
    lambda t: t.arange(0, 1e30, 1e-30),
    lambda t: t.arange(0, 5, 1, dtype=t.bool),
    lambda t: t.arange(1, 1, 1),
    lambda t: t.arange(5, dtype=t.float32, requires_grad=True),
    lambda t: t.arange(t.tensor(2.5)),
])
def test_range_edges_as_torch(snippet):
    check(snippet, rtol=0, atol=0)
    _bits(snippet)
