"""``log_prob``, ``entropy``, ``cdf``, ``rsample``, the moments and ``kl_divergence`` of the
engine's distributions give torch's values, gradients and ``grad_fn`` names
(tests/engine/differential.py runs each snippet in both libraries)."""

from __future__ import annotations

import pytest

from ..differential import check


def _p(t, data, dtype="float32"):
    return t.tensor(data, dtype=getattr(t, dtype), requires_grad=True)


def _graded(t, make, use):
    """Build leaf parameters, the distribution from them, then backward through ``use``:
    the result, the leaves (with their grads) and the first output's grad_fn."""
    leaves, dist = make(t)
    out = use(t, dist)
    out.sum().backward()
    return {"out": out, "leaves": tuple(leaves)}


def _normal(t):
    loc, scale = _p(t, [0.3, -1.0, 2.0]), _p(t, [1.5, 0.5, 2.0])
    return (loc, scale), t.distributions.Normal(loc, scale)


def _uniform(t):
    lo, hi = _p(t, [0.0, -1.0]), _p(t, [2.0, 3.0])
    return (lo, hi), t.distributions.Uniform(lo, hi)


def _bernoulli_probs(t):
    p = _p(t, [0.2, 0.5, 0.9])
    return (p,), t.distributions.Bernoulli(p)


def _bernoulli_logits(t):
    z = _p(t, [-1.0, 0.0, 2.5])
    return (z,), t.distributions.Bernoulli(logits=z)


def _categorical_probs(t):
    p = _p(t, [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
    return (p,), t.distributions.Categorical(p)


def _categorical_logits(t):
    z = _p(t, [[1.0, -2.0, 0.5], [0.0, 0.1, 0.2]])
    return (z,), t.distributions.Categorical(logits=z)


def _multinomial(t):
    z = _p(t, [0.5, -0.5, 1.5])
    return (z,), t.distributions.Multinomial(6, logits=z)


def _one_hot(t):
    p = _p(t, [0.2, 0.3, 0.5])
    return (p,), t.distributions.OneHotCategorical(p)


def _exponential(t):
    r = _p(t, [0.5, 2.0])
    return (r,), t.distributions.Exponential(r)


def _laplace(t):
    loc, scale = _p(t, [0.0, 1.0]), _p(t, [2.0, 0.5])
    return (loc, scale), t.distributions.Laplace(loc, scale)


def _gamma(t):
    c, r = _p(t, [0.5, 2.0, 9.0]), _p(t, [1.0, 3.0, 0.5])
    return (c, r), t.distributions.Gamma(c, r)


def _beta(t):
    a, b = _p(t, [0.5, 2.0]), _p(t, [3.0, 1.2])
    return (a, b), t.distributions.Beta(a, b)


def _dirichlet(t):
    c = _p(t, [[0.5, 1.5, 3.0], [2.0, 7.0, 8.0]])
    return (c,), t.distributions.Dirichlet(c)


def _mvn_cov(t):
    loc = _p(t, [0.5, -1.0, 2.0])
    cov = _p(t, [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
    return (loc, cov), t.distributions.MultivariateNormal(loc, covariance_matrix=cov)


def _mvn_tril(t):
    loc = _p(t, [[0.0, 1.0], [2.0, -1.0]])
    tril = _p(t, [[1.0, 0.0], [0.4, 0.7]])
    return (loc, tril), t.distributions.MultivariateNormal(loc, scale_tril=tril)


def _independent(t):
    leaves, n = _normal(t)
    return leaves, t.distributions.Independent(n, 1)


VALUES = {
    "normal": [0.1, 0.2, -3.0], "uniform": [0.5, 2.9], "bernoulli_probs": [1.0, 0.0, 1.0],
    "bernoulli_logits": [0.0, 1.0, 1.0], "categorical_probs": [2, 0],
    "categorical_logits": [[0, 1], [2, 2]], "multinomial": [1.0, 2.0, 3.0],
    "one_hot": [0.0, 1.0, 0.0], "exponential": [0.1, 3.0], "laplace": [-1.0, 1.2],
    "gamma": [0.3, 1.0, 20.0], "beta": [0.25, 0.8], "dirichlet": [0.2, 0.3, 0.5],
    "mvn_cov": [0.0, 0.0, 1.0], "mvn_tril": [[0.5, 0.5], [1.0, 2.0]], "independent":
    [0.0, 0.5, 1.0],
}
MAKERS = {name: globals()["_" + name] for name in VALUES}
INTEGER_VALUES = ("categorical_probs", "categorical_logits")


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_log_prob(name):
    def snippet(t):
        dt = t.int64 if name in INTEGER_VALUES else t.float32
        return _graded(t, MAKERS[name],
                       lambda t, d: d.log_prob(t.tensor(VALUES[name], dtype=dt)))

    check(snippet, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(set(MAKERS) - {"multinomial"}))
def test_entropy(name):
    check(lambda t: _graded(t, MAKERS[name], lambda t, d: d.entropy()), rtol=2e-5, atol=2e-5)


def test_multinomial_entropy():
    check(lambda t: t.distributions.Multinomial(4, t.tensor([0.2, 0.5, 0.3])).entropy())


RSAMPLED = ("normal", "uniform", "exponential", "gamma", "beta", "dirichlet", "mvn_cov",
            "mvn_tril", "independent")


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("name", RSAMPLED)
def test_rsample_gradients(name, seed):
    def snippet(t):
        t.manual_seed(seed)
        return _graded(t, MAKERS[name], lambda t, d: d.rsample((3,)) * t.tensor(0.5))

    check(snippet, rtol=1e-4, atol=1e-5)


def test_laplace_rsample_gradients():
    check(lambda t: (t.manual_seed(1), _graded(t, _laplace, lambda t, d: d.rsample((4,))))[1],
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["normal", "uniform", "exponential", "laplace"])
def test_cdf(name):
    x = {"normal": [0.0, 1.0, 2.0], "uniform": [0.5, 1.0], "exponential": [0.5, 1.0],
         "laplace": [0.5, -1.0]}[name]
    check(lambda t: _graded(t, MAKERS[name], lambda t, d: d.cdf(t.tensor(x))), atol=1e-6)


MOMENTS = ("mean", "variance", "stddev")


@pytest.mark.parametrize("name", sorted(set(MAKERS) - {"categorical_probs",
                                                        "categorical_logits"}))
def test_moments(name):
    def snippet(t):
        _, d = MAKERS[name](t)
        return {m: getattr(d, m) for m in MOMENTS} | {
            "batch": d.batch_shape, "event": d.event_shape}

    check(snippet, rtol=1e-5)


KL_PAIRS = {
    "normal": lambda t: (t.distributions.Normal(_p(t, [0.0, 1.0]), _p(t, [1.0, 2.0])),
                         t.distributions.Normal(t.tensor([0.5, 0.0]), t.tensor([2.0, 1.0]))),
    "bernoulli": lambda t: (t.distributions.Bernoulli(_p(t, [0.2, 0.7])),
                            t.distributions.Bernoulli(t.tensor([0.5, 0.1]))),
    "categorical": lambda t: (t.distributions.Categorical(_p(t, [0.2, 0.3, 0.5])),
                              t.distributions.Categorical(logits=t.tensor([0.0, 1.0, 2.0]))),
    "one_hot": lambda t: (t.distributions.OneHotCategorical(_p(t, [0.2, 0.8])),
                          t.distributions.OneHotCategorical(t.tensor([0.6, 0.4]))),
    "uniform": lambda t: (t.distributions.Uniform(_p(t, [0.0, 0.0]), _p(t, [1.0, 3.0])),
                          t.distributions.Uniform(t.tensor([-1.0, 0.5]), t.tensor([2.0, 4.0]))),
    "exponential": lambda t: (t.distributions.Exponential(_p(t, [1.0, 3.0])),
                              t.distributions.Exponential(t.tensor([2.0, 0.5]))),
    "laplace": lambda t: (t.distributions.Laplace(_p(t, 0.0), _p(t, 1.0)),
                          t.distributions.Laplace(t.tensor(1.0), t.tensor(2.0))),
    "gamma": lambda t: (t.distributions.Gamma(_p(t, [2.0, 0.5]), _p(t, [1.0, 2.0])),
                        t.distributions.Gamma(t.tensor([1.0, 1.0]), t.tensor([3.0, 1.0]))),
    "beta": lambda t: (t.distributions.Beta(_p(t, 2.0), _p(t, 3.0)),
                       t.distributions.Beta(t.tensor(1.0), t.tensor(1.5))),
    "dirichlet": lambda t: (t.distributions.Dirichlet(_p(t, [1.0, 2.0, 3.0])),
                            t.distributions.Dirichlet(t.tensor([0.5, 0.5, 4.0]))),
    "mvn": lambda t: (t.distributions.MultivariateNormal(
        _p(t, [0.0, 1.0]), covariance_matrix=_p(t, [[2.0, 0.5], [0.5, 1.0]])),
        t.distributions.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 0.0],
                                                                           [0.3, 2.0]]))),
    "independent": lambda t: (
        t.distributions.Independent(t.distributions.Normal(_p(t, [0.0, 1.0]), 1.0), 1),
        t.distributions.Independent(t.distributions.Normal(t.zeros(2), 2.0), 1)),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence(name):
    def snippet(t):
        p, q = KL_PAIRS[name](t)
        kl = t.distributions.kl_divergence(p, q)
        kl.sum().backward()
        leaves = [v for v in vars(p).values() if hasattr(v, "grad_fn") and v.is_leaf]
        return {"kl": kl, "leaf_grads": tuple(v.grad for v in leaves if v.grad is not None)}

    check(snippet, rtol=2e-5, atol=2e-6)


def test_kl_with_disjoint_support_is_infinite():
    check(lambda t: t.distributions.kl_divergence(
        t.distributions.Uniform(t.tensor([0.0, 0.0]), t.tensor([1.0, 2.0])),
        t.distributions.Uniform(t.tensor([0.5, -1.0]), t.tensor([1.0, 3.0]))))
