"""``smooth_l1_loss``/``SmoothL1Loss``, ``huber_loss``/``HuberLoss`` and ``kl_div``/``KLDivLoss``
against PyTorch: values, gradients, the ``grad_fn`` graph (``SmoothL1LossBackward0``,
``HuberLossBackward0``, kl_div's composed nodes), warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.engine.differential import check

pytest.importorskip("torch")

_X = np.array([[0.3, -1.7, 2.5, 0.05], [-0.2, 0.9, -3.1, 1.2]], dtype=np.float32)
_Y = np.array([[0.1, 0.4, -0.6, 0.0], [0.0, 0.8, -1.0, 2.9]], dtype=np.float32)


def _pair(torch, dtype=None):
    x = torch.tensor(_X.tolist(), requires_grad=True, dtype=dtype)
    y = torch.tensor(_Y.tolist(), requires_grad=True, dtype=dtype)
    return x, y


def _with_grads(torch, loss, x, y):
    loss.backward(torch.ones_like(loss))
    return loss, x.grad, y.grad


CASES = {}


def case(f):
    CASES[f.__name__] = f
    return f


def _elementwise(torch, kind, reduction, knob):
    x, y = _pair(torch)
    if kind == "smooth_l1":
        loss = torch.nn.functional.smooth_l1_loss(x, y, reduction=reduction, beta=knob)
    else:
        loss = torch.nn.HuberLoss(reduction=reduction, delta=knob)(x, y)
    return _with_grads(torch, loss, x, y)


for _red in ("mean", "sum", "none"):
    for _beta in (1.0, 0.5, 3.0, 0.0):
        CASES[f"smooth_l1_{_red}_{_beta}"] = (
            lambda torch, r=_red, b=_beta: _elementwise(torch, "smooth_l1", r, b))
    for _delta in (1.0, 0.5, 2.0):
        CASES[f"huber_{_red}_{_delta}"] = (
            lambda torch, r=_red, d=_delta: _elementwise(torch, "huber", r, d))
    for _log in (False, True):
        CASES[f"kl_div_{_red}_{_log}"] = (
            lambda torch, r=_red, lt=_log: _kl(torch, r, lt))


def _kl(torch, reduction, log_target):
    x = torch.tensor(_X.tolist(), requires_grad=True).log_softmax(1)
    x.retain_grad()
    t = torch.tensor(_Y.tolist()).softmax(1)
    if log_target:
        t = t.log()
    t.requires_grad_(True)
    loss = torch.nn.KLDivLoss(reduction=reduction, log_target=log_target)(x, t)
    loss.backward(torch.ones_like(loss))
    return loss, x.grad, t.grad


@case
def kl_div_batchmean(torch):
    return _kl(torch, "batchmean", False)


@case
def smooth_l1_module_legacy(torch):
    x, y = _pair(torch)
    return _with_grads(torch, torch.nn.SmoothL1Loss(reduce=False, beta=0.7)(x, y), x, y)


@case
def smooth_l1_broadcast(torch):
    x = torch.tensor(_X.tolist(), requires_grad=True)
    y = torch.tensor(_Y[0].tolist())
    return _with_grads(torch, torch.nn.functional.smooth_l1_loss(x, y), x, y)


@case
def smooth_l1_double(torch):
    x, y = _pair(torch, torch.float64)
    return _with_grads(torch, torch.nn.functional.smooth_l1_loss(x, y, beta=0.25), x, y)


@case
def huber_weighted(torch):
    x, y = _pair(torch)
    w = torch.tensor([[1.0, 2.0, 0.5, 0.0], [3.0, 1.0, 1.0, 1.0]])
    return _with_grads(torch, torch.nn.functional.huber_loss(x, y, delta=0.8, weight=w), x, y)


@case
def smooth_l1_negative_beta(torch):
    x, y = _pair(torch)
    return torch.nn.functional.smooth_l1_loss(x, y, beta=-1.0)


@case
def huber_zero_delta(torch):
    x, y = _pair(torch)
    return torch.nn.functional.huber_loss(x, y, delta=0.0)


@case
def huber_bad_reduction(torch):
    x, y = _pair(torch)
    return torch.nn.functional.huber_loss(x, y, reduction="avg")


@case
def smooth_l1_long(torch):
    return torch.nn.functional.smooth_l1_loss(torch.ones(3, dtype=torch.long),
                                              torch.ones(3, dtype=torch.long))


@case
def loss_reprs(torch):
    nn = torch.nn
    return (repr(nn.SmoothL1Loss(beta=0.5)), repr(nn.HuberLoss(delta=2.0)),
            repr(nn.KLDivLoss(log_target=True)), nn.HuberLoss().delta, nn.SmoothL1Loss().beta,
            nn.KLDivLoss(reduction="batchmean").reduction)


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_torch(name):
    check(CASES[name])


def _kl_warnings(torch):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3) / 3)
        torch.nn.functional.kl_div(torch.zeros(2, 3), torch.ones(2, 3) / 3, reduction="sum")
        torch.nn.functional.smooth_l1_loss(torch.zeros(2, 3), torch.ones(3))
    return [(r.category.__name__, str(r.message)) for r in rec]


def test_loss_warnings_match_torch():
    import engine

    expected = _kl_warnings(pytest.importorskip("torch"))
    assert len(expected) == 2
    assert _kl_warnings(engine) == expected
