"""The margin and embedding losses (``cosine_embedding_loss``, ``margin_ranking_loss``,
``triplet_margin_loss``, ``pairwise_distance``) and ``gaussian_nll_loss``, functional and module
forms, against PyTorch: values, gradients of every input, the ``grad_fn`` graph (``SubBackward1``,
``NormBackward1``, ``ClampMinBackward0``...), reductions, warnings and errors on bad shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.engine.differential import check

pytest.importorskip("torch")

_A = np.array([[0.3, -1.7, 2.5, 0.05], [-0.2, 0.9, -3.1, 1.2], [1.0, 0.5, 0.25, -0.4]])
_B = np.array([[0.1, 0.4, -0.6, 0.0], [0.0, 0.8, -1.0, 2.9], [1.1, 0.4, 0.3, -0.5]])
_C = np.array([[0.7, -0.3, 1.6, 0.2], [-1.4, 0.2, 0.6, 0.9], [0.2, -0.9, 1.4, 0.8]])


def _leaves(torch, *arrays, dtype=None):
    return [torch.tensor(a.tolist(), requires_grad=True, dtype=dtype) for a in arrays]


def _with_grads(torch, loss, *leaves):
    loss.backward(torch.ones_like(loss))
    return (loss, *(t.grad for t in leaves))


CASES = {}


def case(f):
    CASES[f.__name__] = f
    return f


def _cosine(torch, reduction, margin, target=(1, -1, 1)):
    a, b = _leaves(torch, _A, _B)
    t = torch.tensor(list(target))
    loss = torch.nn.functional.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction)
    return _with_grads(torch, loss, a, b)


def _ranking(torch, reduction, margin):
    x1, x2 = _leaves(torch, _A[0], _B[0])
    t = torch.tensor([1.0, -1.0, -1.0, 1.0], requires_grad=True)
    loss = torch.nn.MarginRankingLoss(margin=margin, reduction=reduction)(x1, x2, t)
    return _with_grads(torch, loss, x1, x2, t)


def _triplet(torch, reduction, p, swap):
    a, pos, neg = _leaves(torch, _A, _B, _C)
    loss = torch.nn.TripletMarginLoss(margin=0.5, p=p, swap=swap, reduction=reduction)(
        a, pos, neg)
    return _with_grads(torch, loss, a, pos, neg)


def _gaussian(torch, reduction, full):
    x, y = _leaves(torch, _A, _B)
    (var,) = _leaves(torch, np.abs(_C) + 0.1)
    loss = torch.nn.GaussianNLLLoss(full=full, reduction=reduction)(x, y, var)
    return _with_grads(torch, loss, x, y, var)


for _red in ("mean", "sum", "none"):
    for _m in (0.0, 0.3, -0.5):
        CASES[f"cosine_{_red}_{_m}"] = lambda torch, r=_red, m=_m: _cosine(torch, r, m)
        CASES[f"ranking_{_red}_{_m}"] = lambda torch, r=_red, m=_m: _ranking(torch, r, m)
    for _p in (2.0, 1.0, 3.0):
        for _swap in (False, True):
            CASES[f"triplet_{_red}_{_p}_{_swap}"] = (
                lambda torch, r=_red, p=_p, s=_swap: _triplet(torch, r, p, s))
    for _full in (False, True):
        CASES[f"gaussian_{_red}_{_full}"] = lambda torch, r=_red, f=_full: _gaussian(torch, r, f)


@case
def cosine_target_zero_and_module(torch):
    a, b = _leaves(torch, _A, _B)
    loss = torch.nn.CosineEmbeddingLoss(margin=0.1)(a, b, torch.tensor([0, -1, 1]))
    return _with_grads(torch, loss, a, b)


@case
def cosine_zero_d_target(torch):
    a, b = _leaves(torch, _A[0], _B[1])
    return _with_grads(torch, torch.nn.functional.cosine_embedding_loss(
        a, b, torch.tensor(-1), margin=-0.9), a, b)


@case
def cosine_zero_vector(torch):
    a, b = _leaves(torch, np.zeros((2, 3)), np.ones((2, 3)))
    return _with_grads(torch, torch.nn.functional.cosine_embedding_loss(
        a, b, torch.tensor([1, -1])), a, b)


@case
def cosine_double(torch):
    a, b = _leaves(torch, _A, _B, dtype=torch.float64)
    return _with_grads(torch, torch.nn.functional.cosine_embedding_loss(
        a, b, torch.tensor([1, 1, -1])), a, b)


@case
def cosine_legacy_reduce(torch):
    a, b = _leaves(torch, _A, _B)
    loss = torch.nn.CosineEmbeddingLoss(reduce=False)(a, b, torch.tensor([1, -1, 1]))
    return _with_grads(torch, loss, a, b)


@case
def cosine_two_d_target(torch):
    a, b = _leaves(torch, _A, _B)
    return torch.nn.functional.cosine_embedding_loss(a, b, torch.ones(3, 1))


@case
def cosine_one_d_inputs_for_one_d_target(torch):
    a, b = _leaves(torch, _A[0], _B[0])
    return torch.nn.functional.cosine_embedding_loss(a, b, torch.ones(4))


@case
def cosine_two_d_inputs_for_scalar_target(torch):
    a, b = _leaves(torch, _A, _B)
    return torch.nn.functional.cosine_embedding_loss(a, b, torch.tensor(1.0))


@case
def cosine_bad_reduction(torch):
    a, b = _leaves(torch, _A, _B)
    return torch.nn.functional.cosine_embedding_loss(a, b, torch.ones(3), reduction="avg")


@case
def ranking_two_d(torch):
    x1, x2 = _leaves(torch, _A, _B)
    t = torch.tensor([[1.0], [-1.0], [1.0]])
    return _with_grads(torch, torch.nn.functional.margin_ranking_loss(x1, x2, t, 0.2), x1, x2)


@case
def ranking_dimension_mismatch(torch):
    x1, x2 = _leaves(torch, _A, _B)
    return torch.nn.functional.margin_ranking_loss(x1, x2, torch.ones(3))


@case
def ranking_broadcast_mismatch(torch):
    x1, x2 = _leaves(torch, _A[0], _B[0][:3])
    return torch.nn.functional.margin_ranking_loss(x1, x2, torch.ones(4))


@case
def triplet_one_d(torch):
    a, pos, neg = _leaves(torch, _A[0], _B[0], _C[0])
    return _with_grads(torch, torch.nn.functional.triplet_margin_loss(a, pos, neg), a, pos, neg)


@case
def triplet_dimension_mismatch(torch):
    a, pos, neg = _leaves(torch, _A, _B[0], _C)
    return torch.nn.functional.triplet_margin_loss(a, pos, neg)


@case
def triplet_functional_bad_margin(torch):
    a, pos, neg = _leaves(torch, _A, _B, _C)
    return torch.nn.functional.triplet_margin_loss(a, pos, neg, margin=0.0)


@case
def triplet_module_bad_margin(torch):
    return torch.nn.TripletMarginLoss(margin=-1.0)


@case
def triplet_legacy_size_average(torch):
    a, pos, neg = _leaves(torch, _A, _B, _C)
    loss = torch.nn.functional.triplet_margin_loss(a, pos, neg, size_average=False)
    return _with_grads(torch, loss, a, pos, neg)


@case
def pairwise_distance_keepdim_broadcast(torch):
    x1, x2 = _leaves(torch, _A, _B[1])
    return _with_grads(torch, torch.nn.functional.pairwise_distance(x1, x2, keepdim=True),
                       x1, x2)


@case
def gaussian_float_var(torch):
    x, y = _leaves(torch, _A, _B)
    return _with_grads(torch, torch.nn.functional.gaussian_nll_loss(x, y, 0.5), x, y)


@case
def gaussian_var_one_dim_short(torch):
    x, y = _leaves(torch, _A, _B)
    (var,) = _leaves(torch, np.array([0.5, 2.0, 1e-9]))
    return _with_grads(torch, torch.nn.functional.gaussian_nll_loss(x, y, var), x, y, var)


@case
def gaussian_var_column(torch):
    x, y = _leaves(torch, _A, _B)
    (var,) = _leaves(torch, np.array([[0.5], [2.0], [0.0]]))
    return _with_grads(torch, torch.nn.GaussianNLLLoss(eps=1e-3)(x, y, var), x, y, var)


@case
def gaussian_var_wrong_size(torch):
    x, y = _leaves(torch, _A, _B)
    return torch.nn.functional.gaussian_nll_loss(x, y, torch.ones(2, 2))


@case
def gaussian_negative_var(torch):
    x, y = _leaves(torch, _A, _B)
    return torch.nn.functional.gaussian_nll_loss(x, y, -torch.ones(3, 4))


@case
def gaussian_negative_float_var(torch):
    x, y = _leaves(torch, _A, _B)
    return torch.nn.functional.gaussian_nll_loss(x, y, -1.0)


@case
def gaussian_bad_reduction(torch):
    x, y = _leaves(torch, _A, _B)
    return torch.nn.functional.gaussian_nll_loss(x, y, torch.ones(3, 4), reduction="avg")


@case
def loss_reprs_and_attributes(torch):
    nn = torch.nn
    t, g = nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True), nn.GaussianNLLLoss(full=True)
    return (repr(nn.CosineEmbeddingLoss(margin=0.5)), repr(nn.MarginRankingLoss(0.1)), repr(t),
            repr(g), t.margin, t.p, t.eps, t.swap, g.full, g.eps, g.reduction,
            nn.CosineEmbeddingLoss(size_average=False).reduction,
            nn.MarginRankingLoss(margin=0.2).margin, type(t).__name__,
            len(list(t.parameters())), list(t.state_dict()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_torch(name):
    check(CASES[name])


def _legacy_warnings(torch):
    a, b = torch.ones(2, 3), torch.ones(2, 3) * 2
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.nn.functional.cosine_embedding_loss(a, b, torch.ones(2), size_average=True)
        torch.nn.functional.margin_ranking_loss(a[0], b[0], torch.ones(3), reduce=False)
        torch.nn.MarginRankingLoss(reduce=True)
        torch.nn.functional.gaussian_nll_loss(a, b, torch.ones(2, 3))
    return [(r.category.__name__, str(r.message)) for r in rec]


def test_legacy_reduction_warnings_match_torch():
    import engine

    expected = _legacy_warnings(pytest.importorskip("torch"))
    assert len(expected) == 3
    assert _legacy_warnings(engine) == expected
