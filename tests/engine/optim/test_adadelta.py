"""engine.optim.Adadelta against torch.optim.Adadelta: trajectories over its options (given
gradients and autograd's), state (``step``, ``square_avg``, ``acc_delta``), version counters,
repr and param_groups, construction errors and the state_dict round trip. The helpers are
test_optim's, so Adadelta is held to the same standard as the other optimizers."""

from __future__ import annotations

import pytest

import engine
from tests.engine.optim import test_optim
from tests.engine.optim.test_optim import (
    _combos,
    _gradient_sequence,
    _plain,
    _trained,
    assert_close,
)

torch = pytest.importorskip("torch")

CASES = [("Adadelta", kw) for kw in _combos(lr=[1.0, 0.3], rho=[0.9, 0.5], eps=[1e-6, 1e-2],
                                             weight_decay=[0, 0.1], maximize=[False, True])]


@pytest.mark.parametrize("mode", ["given", "autograd"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c[1].items()))
def test_trajectory_matches_torch(case, mode):
    test_optim.test_trajectory_matches_torch(case, mode)


def test_repr_param_groups_and_state_dict():
    def run(lib):
        p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.Adadelta([{"params": [p]}, {"params": q, "lr": 0.5}], rho=0.8)
        opt2, _, _ = _trained(lib, "Adadelta", rho=0.7)
        return (repr(opt), [{k: v for k, v in g.items() if k != "params"}
                            for g in opt.param_groups], type(opt).__module__.split(".")[-1],
                _plain(opt2.state_dict()))

    assert run(engine) == run(torch)


def test_state_dict_round_trip_continues_the_run():
    def run(lib):
        opt, w, b = _trained(lib, "Adadelta", steps=3)
        w2, b2 = lib.nn.Parameter(w.detach().clone()), lib.nn.Parameter(b.detach().clone())
        fresh = lib.optim.Adadelta([{"params": [w2]}, {"params": [b2]}])
        fresh.load_state_dict(opt.state_dict())
        for g in _gradient_sequence()[3:6]:
            w2.grad, b2.grad = lib.tensor(g["w"]), lib.tensor(g["b"])
            fresh.step()
        return w2.detach().numpy(), b2.detach().numpy()

    for e, t in zip(run(engine), run(torch)):
        assert_close(e, t)


@pytest.mark.parametrize("kw", [{"lr": -1}, {"rho": 1.5}, {"rho": -0.1}, {"eps": -1},
                                {"weight_decay": -1}])
def test_construction_errors(kw):
    def error(lib):
        with pytest.raises(Exception) as info:
            lib.optim.Adadelta([lib.ones(2, requires_grad=True)], **kw)
        return type(info.value).__name__, str(info.value)

    assert error(engine) == error(torch)
