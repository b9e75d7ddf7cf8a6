"""Checkpoints as tutorials write them: ``{"model": m.state_dict(), "optimizer":
opt.state_dict(), "scheduler": sched.state_dict()}``, saved, loaded into fresh objects and
trained on, compared with PyTorch: the optimizer format (``{"state": {index: {...}},
"param_groups": [{..., "params": [indices]}]}``), the resumed trajectory and lrs."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")


def _plain(value):
    if type(value).__name__ in ("Tensor", "Parameter"):
        return ("tensor", str(value.dtype), value.detach().numpy().tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    return value


def _setup(lib, opt_name):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1),
                               dtype=lib.float32))
    groups = [{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.01}]
    opt = {"SGD": lambda: lib.optim.SGD(groups, lr=0.05, momentum=0.9, nesterov=True),
           "Adam": lambda: lib.optim.Adam(groups, lr=0.05, amsgrad=True),
           "AdamW": lambda: lib.optim.AdamW(groups, lr=0.05),
           "RMSprop": lambda: lib.optim.RMSprop(groups, lr=0.01, momentum=0.5, centered=True),
           "Adagrad": lambda: lib.optim.Adagrad(groups, lr=0.1)}[opt_name]()
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return model, opt, sched


def _train(lib, model, opt, sched, steps, start=0):
    x = lib.tensor(np.linspace(-2, 2, 24).reshape(8, 3), dtype=lib.float32)
    y = lib.tensor(np.linspace(0, 1, 8).reshape(8, 1), dtype=lib.float32)
    for _ in range(start, start + steps):
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
    return loss.item()


@pytest.mark.parametrize("opt_name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_checkpoint_round_trip_matches_torch(opt_name):
    def run(lib):
        model, opt, sched = _setup(lib, opt_name)
        _train(lib, model, opt, sched, 3)
        checkpoint = copy.deepcopy({"model": model.state_dict(), "optimizer": opt.state_dict(),
                                    "scheduler": sched.state_dict(), "epoch": 3})
        model2, opt2, sched2 = _setup(lib, opt_name)
        keys = repr(model2.load_state_dict(checkpoint["model"]))
        opt2.load_state_dict(checkpoint["optimizer"])
        sched2.load_state_dict(checkpoint["scheduler"])
        loss = _train(lib, model2, opt2, sched2, 3, start=3)
        return (_plain(checkpoint["optimizer"]), sorted(checkpoint["scheduler"]), keys,
                _plain(model2.state_dict()), loss, sched2.get_last_lr(),
                _plain(opt2.state_dict()["param_groups"]))

    e, t = run(engine), run(torch)
    assert e[1:3] == t[1:3] and e[5:] == t[5:]
    np.testing.assert_equal(e[0]["param_groups"], t[0]["param_groups"])
    for got, want in ((e[0]["state"], t[0]["state"]), (e[3], t[3])):
        assert got.keys() == want.keys()
        for k in want:
            a, b = got[k], want[k]
            if isinstance(b, dict):
                assert a.keys() == b.keys()
                pairs = [(a[s], b[s]) for s in b]
            else:
                pairs = [(a, b)]
            for x, y in pairs:
                assert x[:2] == y[:2]
                np.testing.assert_allclose(x[2], y[2], rtol=1e-5, atol=1e-7)
    assert e[4] == pytest.approx(t[4], rel=1e-5)


def test_initial_lr_is_saved_with_the_param_groups():
    def run(lib):
        _, opt, _ = _setup(lib, "SGD")
        return [sorted(g) for g in opt.state_dict()["param_groups"]], \
            [g["initial_lr"] for g in opt.param_groups]

    assert run(engine) == run(torch)
