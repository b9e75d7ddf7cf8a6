"""Every distribution's ``sample``/``rsample`` equals torch 2.x's bit for bit after the same
``manual_seed``, over seeds, sample shapes and batch shapes, and leaves the generator in the same
state (engine/distributions/, drawing through engine/random.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ..test_random import _same as same_bits  # equal shapes, dtypes and bits
from ._both import draw_both

SEEDS = [0, 1, 42, 2**32 + 7]
SHAPES = [(), (1,), (7,), (4, 5), (33,)]  # 33: the 16-wide normal fill plus its tail


def _t(lib, data, dtype="float32"):
    return lib.tensor(data, dtype=getattr(lib, dtype))


DISTRIBUTIONS = {
    "normal_scalar": lambda t, D: D.Normal(0.5, 2.0),
    "normal_batch": lambda t, D: D.Normal(_t(t, [0.0, 1.0, -2.0]), _t(t, [1.0, 0.5, 3.0])),
    "normal_f64": lambda t, D: D.Normal(_t(t, [[0.0], [1.0]], "float64"),
                                        _t(t, [1.0, 2.0, 3.0], "float64")),
    "uniform": lambda t, D: D.Uniform(_t(t, [0.0, -1.0]), _t(t, [1.0, 5.0])),
    "uniform_f64": lambda t, D: D.Uniform(_t(t, -2.0, "float64"), 3.0),
    "bernoulli_probs": lambda t, D: D.Bernoulli(_t(t, [0.1, 0.5, 0.9])),
    "bernoulli_logits": lambda t, D: D.Bernoulli(logits=_t(t, [[-1.0, 2.0], [0.0, 0.3]])),
    "bernoulli_f64": lambda t, D: D.Bernoulli(_t(t, [0.25, 0.75], "float64")),
    "categorical": lambda t, D: D.Categorical(_t(t, [0.1, 0.2, 0.3, 0.4])),
    "categorical_logits_batch": lambda t, D: D.Categorical(
        logits=_t(t, [[0.0, 1.0, 2.0], [3.0, -1.0, 0.5]])),
    "multinomial": lambda t, D: D.Multinomial(10, _t(t, [0.2, 0.3, 0.5])),
    "multinomial_batch": lambda t, D: D.Multinomial(
        3, logits=_t(t, [[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])),
    "one_hot": lambda t, D: D.OneHotCategorical(_t(t, [0.5, 0.25, 0.25])),
    "exponential": lambda t, D: D.Exponential(_t(t, [0.5, 1.0, 4.0])),
    "exponential_f64": lambda t, D: D.Exponential(_t(t, 2.0, "float64")),
    "laplace": lambda t, D: D.Laplace(_t(t, [0.0, 3.0]), _t(t, [1.0, 0.1])),
    "laplace_f64": lambda t, D: D.Laplace(_t(t, 1.0, "float64"), 2.0),
    "independent_normal": lambda t, D: D.Independent(
        D.Normal(t.zeros(2, 3), t.ones(2, 3)), 1),
    "mvn_cov": lambda t, D: D.MultivariateNormal(
        _t(t, [0.5, -1.0, 2.0]),
        covariance_matrix=_t(t, [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])),
    "mvn_tril_batch": lambda t, D: D.MultivariateNormal(
        t.zeros(2, 2), scale_tril=_t(t, [[1.0, 0.0], [0.5, 2.0]])),
    "mvn_precision": lambda t, D: D.MultivariateNormal(
        t.zeros(2), precision_matrix=_t(t, [[2.0, 0.5], [0.5, 1.0]])),
    "gamma": lambda t, D: D.Gamma(_t(t, [0.3, 1.0, 2.5, 9.0]), _t(t, [1.0, 2.0, 0.5, 3.0])),
    "gamma_f64": lambda t, D: D.Gamma(_t(t, 0.7, "float64"), 1.5),
    "beta": lambda t, D: D.Beta(_t(t, [0.5, 2.0]), _t(t, [3.0, 0.8])),
    "dirichlet": lambda t, D: D.Dirichlet(_t(t, [[0.5, 1.5, 3.0], [7.0, 8.0, 0.2]])),
}


# Where torch's arithmetic after the (bit-exact) draws is not the engine's, the samples agree to
# rounding: Laplace's log1p is SLEEF's vectorised one in torch, numpy's in the engine's op table;
# MultivariateNormal's Cholesky factor is MKL's and its ``L @ eps`` ATen's unfused small-matrix
# loop, against numpy's LAPACK and BLAS. The generator states must still agree exactly.
ULP_CLOSE = {"laplace": 2e-7, "laplace_f64": 1e-15, "mvn_cov": 1e-5, "mvn_tril_batch": 1e-5,
             "mvn_precision": 1e-5}


def assert_same_draws(name, mine, ref, where):
    if name in ULP_CLOSE:
        assert mine.shape == ref.shape and mine.dtype == ref.dtype, where
        atol = 1e-6 if name.startswith("mvn") else 0  # L @ eps can cancel to near 0
        np.testing.assert_allclose(mine, ref, rtol=ULP_CLOSE[name], atol=atol, err_msg=str(where))
    else:
        assert same_bits(mine, ref), (where, mine, ref)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_sample_is_torchs_bit_for_bit(name, shape):
    for seed in SEEDS if shape in ((), (4, 5)) else SEEDS[:2]:
        mine, ref, same_state = draw_both(
            lambda t, D: DISTRIBUTIONS[name](t, D).sample(shape), seed)
        assert_same_draws(name, mine, ref, (name, shape, seed))
        assert same_state, "the generator states differ afterwards"


RSAMPLED = sorted(n for n in DISTRIBUTIONS if not n.startswith(
    ("bernoulli", "categorical", "multinomial", "one_hot")))


@pytest.mark.parametrize("name", RSAMPLED)
def test_rsample_is_torchs_bit_for_bit(name):
    for seed in SEEDS:
        mine, ref, same_state = draw_both(
            lambda t, D: DISTRIBUTIONS[name](t, D).rsample((3, 2)), seed)
        assert_same_draws(name, mine, ref, (name, seed))
        assert same_state


def test_expand_then_sample_matches():
    def fn(t, D):
        n = D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).expand((3, 2))
        c = D.Categorical(t.tensor([0.2, 0.8])).expand((4,))
        return [n.sample(), n.rsample((2,)), c.sample((5,)), n.batch_shape, c.batch_shape]

    for seed in SEEDS:
        mine, ref, same_state = draw_both(fn, seed)
        assert same_bits(mine[:3], ref[:3]) and same_state
        assert tuple(mine[3]) == tuple(ref[3]) and tuple(mine[4]) == tuple(ref[4])


def test_draws_interleave_with_the_global_stream():
    """Distribution draws consume the stream exactly as torch's, so later plain draws agree."""
    def fn(t, D):
        out = [D.Normal(0.0, 1.0).sample((3,)), t.randn(5)]  # the cached second normal
        out += [D.Gamma(t.tensor([0.5, 3.0]), 1.0).sample(), t.randn(3)]
        out += [D.Multinomial(20, t.tensor([0.5, 0.5])).sample(), t.rand(17)]
        return out

    for seed in SEEDS:
        mine, ref, same_state = draw_both(fn, seed)
        assert same_bits(mine, ref) and same_state


def test_a_generator_state_round_trips_through_a_sample():
    def fn(t, D):
        state = t.get_rng_state()
        a = D.Laplace(0.0, 1.0).sample((20,))
        t.set_rng_state(state)
        return [a, D.Laplace(0.0, 1.0).sample((20,))]

    mine, ref, _ = draw_both(fn, 3)
    assert same_bits(mine[0], mine[1]) and same_bits(ref[0], ref[1])
    np.testing.assert_allclose(mine[0], ref[0], rtol=2e-7)
