"""The engine's random streams equal PyTorch's CPU generator bit for bit (engine/random.py).

Every case is one function of ``lib`` run twice, with ``lib`` the engine and then torch, from
the same seed: the values must be identical (``np.array_equal``, not close) and so must the
generator state afterwards (``get_rng_state`` bytes, PyTorch's 5056-byte layout). Every test runs
on both of the engine's paths: the compiled kernel (engine/_native/fill.c; skipped where it did
not build) and the numpy code that stands in for it (``GRADSTEP_NATIVE=0``)."""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import engine
import engine.nn  # engine.nn.init / functional
from engine import _native
from engine import random as erandom

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True, params=["native", "numpy"])
def kernel_path(request, monkeypatch):
    if request.param == "native":
        if not _native.built():
            pytest.skip("the compiled kernel (engine/_native/fill.c) is not built here")
        monkeypatch.delenv("GRADSTEP_NATIVE", raising=False)
        assert _native.kernel() is not None
    else:
        monkeypatch.setenv("GRADSTEP_NATIVE", "0")
        assert _native.kernel() is None
    return request.param

SEEDS = [0, 1, 7, 42, 12345, 2**32 + 5, 67280421310721, -1]
SIZES = [0, 1, 15, 16, 17, 100, 1000, 10**5]


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    if isinstance(x, engine.Tensor):
        return x._data
    return np.asarray(x)


def _same(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return (a.shape == b.shape and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def check(fn, seed=0):
    """fn(lib) from ``seed`` with lib = engine and lib = torch: equal values, equal states."""
    engine.manual_seed(seed)
    mine = _np(fn(engine))
    my_state = engine.get_rng_state()._data.copy()
    torch.manual_seed(seed)
    ref = _np(fn(torch))
    ref_state = torch.get_rng_state().numpy()
    assert _same(mine, ref), (mine, ref)
    assert np.array_equal(my_state, ref_state), "the generator states differ afterwards"


def _dt(lib, name):
    return getattr(lib, name)


CASES = {
    "rand": lambda t, n: t.rand(n),
    "rand_f64": lambda t, n: t.rand(n, dtype=t.float64),
    "randn": lambda t, n: t.randn(n),
    "randn_f64": lambda t, n: t.randn(n, dtype=t.float64),
    "randint": lambda t, n: t.randint(3, 17, (n,)),
    "randint_high_only": lambda t, n: t.randint(10, (n,)),
    "randint_wide": lambda t, n: t.randint(-5, 2**40, (n,)),
    "randint_2_28": lambda t, n: t.randint(0, 2**28, (n,)),
    "randint_int32": lambda t, n: t.randint(-100, 100, (n,), dtype=t.int32),
    "randint_float": lambda t, n: t.randint(0, 5, (n,), dtype=t.float32),
    "randperm": lambda t, n: t.randperm(n),
    "uniform_": lambda t, n: t.empty(n).uniform_(-0.37, 1.3),
    "uniform_f64": lambda t, n: t.empty(n, dtype=t.float64).uniform_(-2.5, 7.25),
    "normal_": lambda t, n: t.empty(n).normal_(0.3, 2.7),
    "normal_f64": lambda t, n: t.empty(n, dtype=t.float64).normal_(-1.5, 0.1),
    "bernoulli_": lambda t, n: t.empty(n).bernoulli_(0.3),
    "bernoulli_f64": lambda t, n: t.zeros(n, dtype=t.float64).bernoulli_(0.75),
    "bernoulli_p_f32": lambda t, n: t.bernoulli(t.linspace(0, 1, n)),
    "bernoulli_p_f64": lambda t, n: t.bernoulli(t.linspace(0, 1, n, dtype=t.float64)),
    "exponential_": lambda t, n: t.empty(n).exponential_(1.7),
    "exponential_f64": lambda t, n: t.empty(n, dtype=t.float64).exponential_(),
    "random_f32": lambda t, n: t.empty(n).random_(),
    "random_i64": lambda t, n: t.empty(n, dtype=t.int64).random_(),
    "random_i32": lambda t, n: t.empty(n, dtype=t.int32).random_(),
    "random_u8": lambda t, n: t.empty(n, dtype=t.uint8).random_(),
    "random_bool": lambda t, n: t.empty(n, dtype=t.bool).random_(),
    "random_from_to": lambda t, n: t.empty(n, dtype=t.int64).random_(-4, 9),
    "random_to": lambda t, n: t.empty(n).random_(1000),
    "random_from_none": lambda t, n: t.empty(n, dtype=t.int64).random_(7, None),
    "random_from_none_f32": lambda t, n: t.empty(n).random_(-3, None),
    "random_full_64": lambda t, n: t.empty(n, dtype=t.int64).random_(-2**63, None),
    "rand_f16": lambda t, n: t.rand(n, dtype=t.float16),
    "randn_f16": lambda t, n: t.randn(size=(n,), dtype=t.float16),
    "normal_f16": lambda t, n: t.empty(n, dtype=t.float16).normal_(1.0, 2.0),
    # per element: a double cast to half through float (c10::Half's constructor)
    "normal_f16_strided": lambda t, n: t.empty(n, 2, dtype=t.float16)[:, 0].normal_(-1.5, 0.1),
    "exponential_f16": lambda t, n: t.empty(n, dtype=t.float16).exponential_(1.7),
    "random_f64": lambda t, n: t.empty(n, dtype=t.float64).random_(),
    "random_i8": lambda t, n: t.empty(n, dtype=t.int8).random_(),
    "random_i16": lambda t, n: t.empty(n, dtype=t.int16).random_(),
    "rand_like": lambda t, n: t.rand_like(t.zeros(n, dtype=t.float64)),
    "randn_like": lambda t, n: t.randn_like(t.zeros(n)),
    "randint_like": lambda t, n: t.randint_like(t.zeros(n), 3, 8),
    "normal_floats": lambda t, n: t.normal(2.0, 3.0, size=(n,)),
    "normal_tensors": lambda t, n: t.normal(t.arange(n, dtype=t.float32), t.ones(n) * 0.5),
    "normal_tensor_mean": lambda t, n: t.normal(t.arange(n, dtype=t.float32), 2.0),
    "normal_tensor_std": lambda t, n: t.normal(1.0, t.full((n,), 0.25)),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_function_matches_torch(name, n):
    if n == 10**5 and name in ("randperm", "bernoulli_p_f64"):
        n = 3 * 10**4  # the swap loop is Python: keep the test quick
    for seed in (SEEDS if n <= 1000 else SEEDS[:2]):
        check(lambda t: CASES[name](t, n), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_interleaved_script_matches_torch(seed):
    def script(t):
        return [t.rand(3), t.randn(5), t.randn(100), t.randint(0, 10, (7,)), t.randperm(20),
                t.randn(3), t.randn(1, dtype=t.float64), t.randn(2, 8), t.rand(17, dtype=t.float64),
                t.randn(4, 5), t.empty(6).normal_(), t.randint(-3, 3, (2, 3)),
                t.randn(33), t.randperm(1), t.randn(1), t.empty(40).bernoulli_(0.5),
                t.randn(7, dtype=t.float64), t.rand(2, 2)]

    check(script, seed)


def test_the_cached_normal_is_shared_and_reset_by_manual_seed():
    def script(t):
        out = [t.randn(1), t.randn(1, dtype=t.float64), t.randn(3), t.randn(16), t.randn(1)]
        t.manual_seed(3)
        out += [t.randn(1), t.randn(1)]
        return out

    check(script, 0)
    # the cached second normal is in PyTorch's state bytes (normal_y, normal_is_valid)
    engine.manual_seed(9)
    torch.manual_seed(9)
    engine.randn(1)
    torch.randn(1)
    assert np.array_equal(engine.get_rng_state()._data, torch.get_rng_state().numpy())


@pytest.mark.parametrize("shape", [(1,), (4, 4), (3, 5, 7), (2, 0, 3), (1000, 10)])
def test_multidimensional_shapes(shape):
    check(lambda t: [t.rand(*shape), t.randn(shape), t.randint(0, 100, shape),
                     t.randn(*shape, dtype=t.float64)], 5)


def test_non_contiguous_tensors_fill_in_memory_order_per_element():
    def script(t):
        a = t.zeros(20, 30)
        a.t().normal_()  # not contiguous: the per-element normal, in memory order
        b = t.zeros(6, 5, dtype=t.float64)
        b.t().uniform_(-1, 1)
        c = t.zeros(4, 8)
        c.t().bernoulli_(0.4)
        return [a, b, c, t.randn(2)]

    check(script, 11)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_bernoulli_with_a_tensor_p_draws_in_the_outputs_order(seed):
    """torch.bernoulli(p) writes a contiguous result whatever p's strides (an expanded p, as
    Bernoulli.sample passes, or a transposed one); bernoulli_(p) reads p in the order it writes
    the output."""
    def script(t):
        row = t.tensor([[0.2, 0.7, 0.5]])
        out = t.empty(3, 4).t().bernoulli_(t.tensor([0.1, 0.5, 0.9]))
        return [t.bernoulli(row.expand(4, 3)), t.bernoulli(t.rand(3, 5).t()), out,
                t.bernoulli(t.full((2, 3), 0.5, dtype=t.float64).t()), t.rand(2)]

    check(script, seed)


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("samples", [1, 2, 5])
def test_multinomial(replacement, samples):
    def script(t):
        p1 = t.tensor([0.1, 0.2, 0.3, 0.15, 0.25, 0.0, 1.5])
        p2 = t.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, 0.0, 0.25, 1.0, 2.0, 0.125]],
                      dtype=t.float64)
        return [t.multinomial(p1, samples, replacement), p2.multinomial(samples, replacement),
                t.multinomial(t.ones(200), samples, replacement), t.rand(3)]

    for seed in SEEDS[:4]:
        check(script, seed)


def test_generator_objects():
    for lib in (engine, torch):
        assert lib.Generator().initial_seed() == 67280421310721
    for seed in SEEDS:
        def script(t, seed=seed):
            g = t.Generator().manual_seed(seed)
            h = t.Generator()
            h.manual_seed(seed + 1)
            return [t.randn(20, generator=g), t.rand(3, generator=h), t.randn(3, generator=g),
                    t.randint(0, 9, (5,), generator=g), t.randperm(9, generator=h),
                    t.empty(4).uniform_(generator=g), t.empty(17).normal_(generator=h),
                    t.rand(2), g.initial_seed(), h.initial_seed()]

        check(script, 1)  # the default generator is untouched by g and h (its state is compared)


def test_seed_initial_seed_and_manual_seed_return_the_generator():
    s = engine.seed()
    assert engine.initial_seed() == s and 0 <= s < 2**64
    assert engine.manual_seed(5) is engine.default_generator
    assert engine.initial_seed() == 5 and engine.random.initial_seed() == 5
    engine.manual_seed(-1)
    torch.manual_seed(-1)
    assert engine.initial_seed() == torch.initial_seed() == 2**64 - 1


def test_rng_state_round_trip_and_exchange_with_torch():
    engine.manual_seed(4)
    engine.randn(3)  # leaves a cached normal
    state = engine.get_rng_state()
    assert state.dtype == engine.uint8 and tuple(state.shape) == (5056,)
    first = [engine.randn(5)._data.copy(), engine.rand(3)._data.copy()]
    engine.set_rng_state(state)
    assert _same([engine.randn(5)._data, engine.rand(3)._data], first)
    # PyTorch's state continues in the engine, and the engine's in PyTorch
    torch.manual_seed(8)
    torch.randn(5)
    engine.set_rng_state(engine.tensor(torch.get_rng_state().numpy()))
    assert _same(engine.randn(7)._data, torch.randn(7).numpy())
    engine.rand(3)
    torch.set_rng_state(torch.from_numpy(engine.random.get_rng_state()._data.copy()))
    assert _same(engine.randn(40)._data, torch.randn(40).numpy())
    with pytest.raises(RuntimeError, match="5056"):
        engine.set_rng_state(engine.zeros(10, dtype=engine.uint8))


def test_generator_get_set_state():
    g = engine.Generator().manual_seed(3)
    s = g.get_state()
    a = engine.rand(4, generator=g)
    g.set_state(s)
    assert _same(engine.rand(4, generator=g)._data, a._data)
    t = torch.Generator().manual_seed(3)
    assert np.array_equal(s._data, t.get_state().numpy())


def test_fork_rng_puts_the_stream_back():
    def script(t):
        with t.random.fork_rng():
            inside = t.randn(20)
        return [inside, t.randn(20)]

    check(script, 2)


def test_session_snapshot_restores_everything():
    from engine import creation

    engine.manual_seed(1)
    engine.randn(1)
    snap = creation.get_generator_state()
    a = engine.randn(3)._data.copy()
    creation.set_generator_state(snap)
    assert _same(engine.randn(3)._data, a)
    before = creation.rng().bit_generator.state
    assert creation.rng().bit_generator.state == before
    engine.rand(1)
    assert creation.rng().bit_generator.state != before


# -- nn ------------------------------------------------------------------------------------------

INIT_CASES = {
    "uniform_": lambda nn, w: nn.init.uniform_(w, -0.3, 0.6),
    "normal_": lambda nn, w: nn.init.normal_(w, 0.5, 0.1),
    "xavier_uniform_": lambda nn, w: nn.init.xavier_uniform_(w, gain=1.5),
    "xavier_normal_": lambda nn, w: nn.init.xavier_normal_(w),
    "kaiming_uniform_": lambda nn, w: nn.init.kaiming_uniform_(w, a=math.sqrt(5)),
    "kaiming_uniform_fan_out": lambda nn, w: nn.init.kaiming_uniform_(
        w, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal_": lambda nn, w: nn.init.kaiming_normal_(w),
    "trunc_normal_": lambda nn, w: nn.init.trunc_normal_(w, std=0.02),
    "trunc_normal_default": lambda nn, w: nn.init.trunc_normal_(w),
    "trunc_normal_narrow": lambda nn, w: nn.init.trunc_normal_(w, a=1.0, b=1.5),
}


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4, 4), (30, 40), (16, 3, 3)])
@pytest.mark.parametrize("name", sorted(INIT_CASES))
def test_nn_init_matches_torch(name, shape):
    for seed in SEEDS[:3]:
        check(lambda t: [INIT_CASES[name](t.nn, t.empty(*shape)), t.randn(2)], seed)


def test_orthogonal_draws_like_torch():
    for shape in [(5, 3), (3, 5), (8, 8)]:
        engine.manual_seed(0)
        w = engine.nn.init.orthogonal_(engine.empty(*shape))
        torch.manual_seed(0)
        v = torch.nn.init.orthogonal_(torch.empty(*shape))
        np.testing.assert_allclose(w._data, v.numpy(), atol=1e-5)  # QR: LAPACK's, not MKL's
        assert np.array_equal(engine.get_rng_state()._data, torch.get_rng_state().numpy())


@pytest.mark.parametrize("sizes", [(1, 1), (2, 3), (7, 5), (100, 10), (300, 20)])
def test_linear_initial_weights(sizes):
    def script(t):
        a = t.nn.Linear(*sizes)
        b = t.nn.Linear(sizes[1], 4, bias=False)
        c = t.nn.Sequential(t.nn.Linear(sizes[0], 8), t.nn.ReLU(), t.nn.Linear(8, 1))
        return [p for m in (a, b, c) for p in m.parameters()] + [t.randn(3)]

    for seed in SEEDS[:4]:
        check(script, seed)


@pytest.mark.skipif(not hasattr(engine.nn, "Conv2d"), reason="no Conv2d in engine.nn")
def test_conv_initial_weights():
    def script(t):
        mods = [t.nn.Conv2d(3, 8, 3), t.nn.Conv2d(1, 4, (3, 5), bias=False), t.nn.Conv1d(4, 6, 3)]
        return [p for m in mods for p in m.parameters()] + [t.randn(3)]

    for seed in SEEDS[:3]:
        check(script, seed)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_dropout_masks(p):
    def script(t):
        x = t.arange(1, 61, dtype=t.float32).reshape(6, 10)
        y = t.nn.functional.dropout(x, p)
        d = t.nn.Dropout(p)
        z = d(t.ones(5, 17, dtype=t.float64))
        d.eval()
        same = d(x)
        w = t.ones(30)
        t.nn.functional.dropout(w, p, inplace=True)
        return [y, z, same, w, t.nn.functional.dropout(x, p, training=False), t.rand(2)]

    for seed in SEEDS[:4]:
        check(script, seed)


def test_dropout_records_mul_and_keeps_eval_identity():
    x = engine.randn(4, requires_grad=True)
    assert engine.nn.functional.dropout(x, 0.5).grad_fn.name() == "MulBackward0"
    assert engine.nn.functional.dropout(x, 0.5, training=False) is x
    assert repr(engine.nn.Dropout(0.2)) == repr(torch.nn.Dropout(0.2))
    with pytest.raises(ValueError, match="between 0 and 1"):
        engine.nn.functional.dropout(x, 1.5)


# -- the float32 fill's math -----------------------------------------------------------------------

def test_avx_math_in_the_float_fill_reproduces_torch_on_many_values():
    # 16 * 40000 normals: every one of log256_ps / sincos256_ps's branches many times over
    check(lambda t: t.randn(16 * 40000), 123)


FILL_SIZES = [16, 17, 31, 33, 10**5 + 3]
FILL_DTYPES = ["float32", "float64", "float16"]
MEAN_STD = [(0.0, 1.0), (0.3, 2.7), (-1.5, 0.1), (4.0, 0.0)]


@pytest.mark.parametrize("dtype", FILL_DTYPES)
@pytest.mark.parametrize("n", FILL_SIZES)
def test_the_16_wide_normal_fill_at_every_size_dtype_mean_and_std(n, dtype):
    """Whole blocks of 16, a recomputed last block (n % 16 != 0), and float16's block by block
    draws; the mean and std enter through the final FMA."""
    def script(t):
        dt = getattr(t, dtype)
        out = [t.randn(n, dtype=dt)]
        out += [t.empty(n, dtype=dt).normal_(m, s) for m, s in MEAN_STD]
        out += [t.normal(2.5, 0.75, size=(n,), dtype=dt), t.rand(3)]
        return out

    for seed in SEEDS[:5] if n < 10**5 else SEEDS[:2]:
        check(script, seed)


def test_in_place_fills_write_only_the_tensors_memory():
    """A contiguous view is filled where it lies (its neighbours untouched), a strided one per
    element in memory order."""
    def script(t):
        base = t.zeros(3, 40)
        base[1].normal_(0.5, 2.0)
        wide = t.full((4, 50), 7.0, dtype=t.float64)
        wide[1:3].uniform_(-2.0, 3.0)
        wide[:, 10:].normal_(-1.0, 0.5)
        tail = t.zeros(70)
        tail[20:].normal_()
        tail[:20].uniform_(1.0, 1.5)
        half = t.zeros(5, 40, dtype=t.float16)
        half[2:].normal_(1.0, 3.0)
        return [base, wide, tail, half, t.randn(2)]

    for seed in SEEDS[:4]:
        check(script, seed)


def test_glibc_logf_sinf_cosf_emulation_matches_libm():
    """The scalar fill (ATEN_CPU_CAPABILITY=default) calls glibc's float functions; the
    emulation was checked on all 2**24 inputs the fill can pass, here on a sample."""
    path = ctypes.util.find_library("m")
    if path is None:
        pytest.skip("no libm")
    libm = ctypes.CDLL(path)
    fns = {}
    for name in ("logf", "sinf", "cosf"):
        fn = getattr(libm, name)
        fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        fns[name] = fn
    k = np.random.default_rng(0).integers(0, 2**24, 20000)
    u1 = (1 - k * 2.0**-24).astype(np.float32)
    theta = (2 * math.pi * (k * 2.0**-24)).astype(np.float32)
    ref = np.array([fns["logf"](float(v)) for v in u1], np.float32)
    assert np.array_equal(erandom._logf(u1), ref)
    sin, cos = erandom._sincosf(theta)
    assert np.array_equal(sin, np.array([fns["sinf"](float(v)) for v in theta], np.float32))
    assert np.array_equal(cos, np.array([fns["cosf"](float(v)) for v in theta], np.float32))


def test_errors():
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        engine.randint(5, 5, (2,))
    with pytest.raises(RuntimeError):
        engine.empty(3).uniform_(2, 1)
    with pytest.raises(TypeError):
        engine.manual_seed(1.5)
    x = engine.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.normal_()


def test_fma32_emulation_rounds_once():
    """A double sum exactly on a float32 midpoint (the exact value just below it) must round down,
    as fmaf does, not to even."""
    e = 3
    f = np.float32(2.0**e * (1 + 3 * 2.0**-23))  # odd last bit: round-half-even would go up
    a = np.array([1 + 2.0**-23], np.float32)
    b = np.float32(2.0 ** (e - 24) * (1 - 2.0**-23))
    assert erandom._fma32(a, b, f)[0] == f
    assert erandom._fma_f(a, b, f)[0] == f
    from fractions import Fraction

    exact = Fraction(float(a[0])) * Fraction(float(b)) + Fraction(float(f))
    midpoint = Fraction(float(f)) + Fraction(float(np.spacing(f))) / 2
    assert exact < midpoint  # so the one rounding of fmaf gives f
