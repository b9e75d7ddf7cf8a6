"""Argument and sample validation, the errors and reprs of the engine's distributions are
torch's (type and first line of the message), and the module paths scripts import exist."""

from __future__ import annotations

import importlib

import pytest

from ..differential import check


def _err(make):
    def snippet(t):
        try:
            make(t, t.distributions)
        except Exception as e:  # the type and message are what is compared
            return e
        return "no error"

    return snippet


BAD_ARGUMENTS = {
    "normal_scale": lambda t, D: D.Normal(0.0, -1.0),
    "normal_scale_tensor": lambda t, D: D.Normal(t.zeros(3), t.tensor([1.0, 0.0, 2.0])),
    "normal_nan_loc": lambda t, D: D.Normal(t.tensor([float("nan")]), 1.0),
    "uniform_order": lambda t, D: D.Uniform(2.0, 1.0),
    "bernoulli_both": lambda t, D: D.Bernoulli(0.5, 0.0),
    "bernoulli_neither": lambda t, D: D.Bernoulli(),
    "bernoulli_range": lambda t, D: D.Bernoulli(t.tensor([1.5])),
    "categorical_0d": lambda t, D: D.Categorical(t.tensor(1.0)),
    "categorical_negative": lambda t, D: D.Categorical(t.tensor([0.5, -0.5, 1.0])),
    "multinomial_count": lambda t, D: D.Multinomial(t.tensor(3), t.tensor([0.5, 0.5])),
    "exponential_rate": lambda t, D: D.Exponential(t.tensor([0.0, 1.0])),
    "gamma_conc": lambda t, D: D.Gamma(-1.0, 1.0),
    "mvn_two_matrices": lambda t, D: D.MultivariateNormal(t.zeros(2), t.eye(2),
                                                          scale_tril=t.eye(2)),
    "mvn_not_pd": lambda t, D: D.MultivariateNormal(
        t.zeros(2), covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn_0d_loc": lambda t, D: D.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    "independent_ndims": lambda t, D: D.Independent(D.Normal(t.zeros(2), 1.0), 2),
    "kl_unregistered": lambda t, D: D.kl_divergence(D.Categorical(t.tensor([0.5, 0.5])),
                                                    D.Bernoulli(0.5)),
    "broadcast_bad_type": lambda t, D: D.Normal("a", 1.0),
}


@pytest.mark.parametrize("name", sorted(BAD_ARGUMENTS))
def test_bad_arguments_raise_torchs_error(name):
    result = check(_err(BAD_ARGUMENTS[name]))
    assert result["kind"] == "error"


BAD_VALUES = {
    "normal_not_tensor": lambda t, D: D.Normal(0.0, 1.0).log_prob(0.5),
    "normal_shape": lambda t, D: D.Normal(t.zeros(3), 1.0).log_prob(t.zeros(2)),
    "bernoulli_support": lambda t, D: D.Bernoulli(t.tensor([0.5])).log_prob(t.tensor([0.5])),
    "categorical_support": lambda t, D: D.Categorical(t.tensor([0.5, 0.5])).log_prob(
        t.tensor(2)),
    "uniform_support": lambda t, D: D.Uniform(0.0, 1.0).log_prob(t.tensor(1.5)),
    "exponential_support": lambda t, D: D.Exponential(1.0).log_prob(t.tensor(-1.0)),
    "multinomial_event": lambda t, D: D.Multinomial(2, t.tensor([0.5, 0.5])).log_prob(
        t.tensor([1.0, 1.0, 0.0])),
}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_values_outside_the_support_raise_torchs_error(name):
    result = check(_err(BAD_VALUES[name]))
    assert result["kind"] == "error"


def test_validation_can_be_turned_off():
    check(lambda t: t.distributions.Normal(0.0, -1.0, validate_args=False).scale)
    check(lambda t: t.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(
        t.tensor(1.5)))


REPRS = {
    "normal": lambda t, D: D.Normal(t.zeros(2), 1.0),
    "normal_scalar": lambda t, D: D.Normal(0.0, 1.0),
    "categorical": lambda t, D: D.Categorical(logits=t.zeros(2, 3)),
    "independent": lambda t, D: D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1),
    "uniform": lambda t, D: D.Uniform(0.0, t.ones(2)),
    "real": lambda t, D: D.constraints.real,
    "interval": lambda t, D: D.constraints.interval(0.0, 1.0),
    "real_vector": lambda t, D: D.constraints.real_vector,
    "positive": lambda t, D: D.constraints.positive,
    "simplex": lambda t, D: D.constraints.simplex,
}


@pytest.mark.parametrize("name", sorted(REPRS))
def test_reprs(name):
    check(lambda t: repr(REPRS[name](t, t.distributions)))


def test_shapes_and_support_flags():
    def snippet(t):
        D = t.distributions
        m = D.MultivariateNormal(t.zeros(4, 2), t.eye(2))
        i = D.Independent(D.Normal(t.zeros(4, 3), 1.0), 1)
        c = D.Categorical(t.ones(5, 3))
        return {"mvn": (m.batch_shape, m.event_shape, m.expand((2, 4)).batch_shape),
                "ind": (i.batch_shape, i.event_shape, i.has_rsample),
                "cat": (c.batch_shape, c.support.upper_bound, c.has_enumerate_support,
                        c.enumerate_support()), "perplexity": c.perplexity(),
                "bern": D.Bernoulli(t.tensor([0.3, 0.6])).enumerate_support()}

    check(snippet)


# torch's public names the engine does not have yet
NOT_YET = {"corr_cholesky", "MixtureSameFamilyConstraint", "positive_semidefinite",
           "tril_matrix_to_vec", "vec_to_tril_matrix"}


@pytest.mark.parametrize("module", ["normal", "uniform", "bernoulli", "categorical",
                                    "multinomial", "one_hot_categorical", "exponential",
                                    "laplace", "independent", "multivariate_normal", "gamma",
                                    "beta", "dirichlet", "kl", "constraints", "utils",
                                    "distribution", "exp_family", "binomial"])
def test_submodule_paths_import_as_torchs(module):
    """``from torch.distributions.<module> import X`` (d2l's ``.multinomial``) works."""
    torch = pytest.importorskip("torch")
    ref = importlib.import_module(f"torch.distributions.{module}")
    mine = importlib.import_module(f"engine.distributions.{module}")
    public = [n for n in getattr(ref, "__all__", []) if not n.startswith("_")]
    missing = [n for n in public if not hasattr(mine, n)]
    assert not set(missing) - NOT_YET, missing
    assert hasattr(torch, "distributions")
