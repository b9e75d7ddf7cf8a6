"""``torch.distributions`` for gradstep's engine: PyTorch's distribution classes, whose samples
are PyTorch's bit for bit after the same ``manual_seed`` (each draws through ``engine.random``
with the primitive calls torch's Python makes, in the same order), and whose ``log_prob``,
``entropy`` and ``rsample`` record autograd graphs as torch's do. After torch/distributions/;
the submodules keep torch's paths (``torch.distributions.multinomial.Multinomial``)."""

from __future__ import annotations

from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential",
    "ExponentialFamily", "Gamma", "Independent", "Laplace", "Multinomial", "MultivariateNormal",
    "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Uniform", "constraints",
    "kl_divergence", "register_kl",
]
