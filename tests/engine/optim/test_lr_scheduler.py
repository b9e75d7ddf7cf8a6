"""``torch.optim.lr_scheduler``: the engine's schedulers give PyTorch's learning rates bit for
bit (the chainable formulas on ``step()``, the closed forms on ``step(epoch)``), with the same
warnings, ``initial_lr`` entries, ``state_dict`` contents and errors."""

from __future__ import annotations

import math
import pickle
import warnings

import pytest

import engine

torch = pytest.importorskip("torch")

CASES = {
    "StepLR": lambda L, o: L.StepLR(o, 7, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [3, 8, 8, 20], 0.3),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.93),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 10, eta_min=0.001),
    "LambdaLR": lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR_list": lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.97),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.1, 1.0, 12),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.25, 6),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 20, 2.0),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=31),
    "OneCycleLR_3": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=31, three_phase=True,
                                              anneal_strategy="linear"),
    "CyclicLR": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=4, mode="triangular2"),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 5, 2, 0.001),
    "SequentialLR": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, 0.1, total_iters=5), L.ExponentialLR(o, 0.9)], [5]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ConstantLR(o, 0.5, 4),
                                                         L.ExponentialLR(o, 0.9)]),
}


def _optimizer(lib, name="SGD"):
    w = lib.nn.Parameter(lib.ones(2))
    b = lib.nn.Parameter(lib.zeros(1))
    groups = [{"params": [w]}, {"params": [b], "lr": 0.05}]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return lib.optim.Adam(groups, lr=0.1)


def _trace(lib, make, steps=30, optimizer_first=True, metric=None, epochs=None, opt="SGD"):
    """The lr after construction and after each step, the warnings, ``initial_lr``s, the
    momentum/betas the scheduler wrote, and ``last_epoch``."""
    o = _optimizer(lib, opt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = make(lib.optim.lr_scheduler, o)
        lrs = [s.get_last_lr()]
        for i in range(steps):
            if optimizer_first:
                o.step()
            if metric is not None:
                s.step(metric(i))
            elif epochs is not None:
                s.step(epochs[i])
            else:
                s.step()
            lrs.append(s.get_last_lr())
    extra = [{k: v for k, v in g.items() if k in ("initial_lr", "momentum", "betas", "max_lr",
                                                  "min_lr", "max_momentum", "base_momentum")}
             for g in o.param_groups]
    return (lrs, [(w.category.__name__, str(w.message)) for w in caught], extra,
            getattr(s, "last_epoch", None))


def _same(a, b):
    # float equality: the lr lists compare with ==, bit for bit
    assert repr(a) == repr(b)


@pytest.mark.parametrize("name", sorted(CASES))
def test_lr_sequence_matches_torch_bit_for_bit(name):
    _same(_trace(engine, CASES[name]), _trace(torch, CASES[name]))


@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR"])
def test_momentum_cycling_with_adam_betas(name):
    _same(_trace(engine, CASES[name], opt="Adam"), _trace(torch, CASES[name], opt="Adam"))


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                  "LinearLR", "ConstantLR", "PolynomialLR",
                                  "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_the_closed_form_and_warns(name):
    epochs = [0, 1, 2, 5, 5, 9, 3, 12, 20, 7]
    _same(_trace(engine, CASES[name], steps=len(epochs), epochs=epochs),
          _trace(torch, CASES[name], steps=len(epochs), epochs=epochs))


def test_scheduler_step_before_optimizer_step_warns_as_torch():
    e = _trace(engine, CASES["StepLR"], steps=3, optimizer_first=False)
    t = _trace(torch, CASES["StepLR"], steps=3, optimizer_first=False)
    _same(e, t)
    assert e[1] == [("UserWarning",
                     "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                     "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                     "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                     "result in PyTorch skipping the first value of the learning rate schedule. "
                     "See more details at https://pytorch.org/docs/stable/optim.html"
                     "#how-to-adjust-learning-rate")]


def test_overridden_optimizer_step_and_get_lr_outside_step_warn():
    def run(lib):
        o = _optimizer(lib)
        s = lib.optim.lr_scheduler.StepLR(o, 2)
        o.step = lambda closure=None: None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            o.step()
            s.step()
            lr = s.get_lr()
        return lr, [str(w.message) for w in caught]

    _same(run(engine), run(torch))


def test_reduce_lr_on_plateau():
    def metric(i):
        return [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8][i % 12]

    for kw in ({"patience": 2, "factor": 0.5}, {"mode": "max", "patience": 1, "cooldown": 2},
               {"threshold_mode": "abs", "threshold": 0.1, "patience": 0, "min_lr": [0.01, 0.02]}):
        def make(L, o, kw=kw):
            return L.ReduceLROnPlateau(o, **kw)

        _same(_trace(engine, make, metric=metric), _trace(torch, make, metric=metric))


def test_state_dict_and_resume():
    def run(lib):
        L = lib.optim.lr_scheduler
        o = _optimizer(lib)
        s = L.OneCycleLR(o, max_lr=1.0, total_steps=40)
        for _ in range(10):
            o.step()
            s.step()
        sd = s.state_dict()
        keys = sorted(sd)
        o2 = _optimizer(lib)
        o2.load_state_dict(o.state_dict())
        s2 = L.OneCycleLR(o2, max_lr=1.0, total_steps=40, last_epoch=9)
        s2.load_state_dict(sd)
        lrs = []
        for _ in range(10):
            o2.step()
            s2.step()
            lrs.append(s2.get_last_lr())
        step = L.StepLR(_optimizer(lib), 3)
        lam = L.LambdaLR(_optimizer(lib), lambda e: 0.5)
        plateau = L.ReduceLROnPlateau(_optimizer(lib))
        return (keys, lrs, s2.last_epoch, sorted(step.state_dict().items()),
                lam.state_dict()["lr_lambdas"], sorted(plateau.state_dict()))

    _same(run(engine), run(torch))


def test_resuming_without_initial_lr_raises_as_torch():
    def run(lib):
        try:
            lib.optim.lr_scheduler.StepLR(_optimizer(lib), 3, last_epoch=4)
        except KeyError as e:
            return type(e).__name__, str(e)

    _same(run(engine), run(torch))


@pytest.mark.parametrize("make", [
    lambda L, o: L.ConstantLR(o, factor=2.0),
    lambda L, o: L.LinearLR(o, start_factor=0),
    lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
    lambda L, o: L.OneCycleLR(o, max_lr=1.0),
    lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=2),
    lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    lambda L, o: L.ReduceLROnPlateau(o, mode="avg"),
    lambda L, o: L.StepLR(object(), 2),
    lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], [3]),
])
def test_construction_errors(make):
    def run(lib):
        try:
            make(lib.optim.lr_scheduler, _optimizer(lib))
        except Exception as e:
            return type(e).__name__, str(e)

    _same(run(engine), run(torch))


def test_onecycle_past_total_steps_raises():
    def run(lib):
        o = _optimizer(lib)
        s = lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=3)
        try:
            for _ in range(5):
                o.step()
                s.step()
        except ValueError as e:
            return str(e)

    _same(run(engine), run(torch))


def test_classes_print_as_torch_and_pickle():
    L = engine.optim.lr_scheduler
    s = L.StepLR(_optimizer(engine), 2)
    assert repr(type(s)) == "<class 'torch.optim.lr_scheduler.StepLR'>"
    assert repr(s).startswith("<torch.optim.lr_scheduler.StepLR object at 0x")
    assert isinstance(s, L.LRScheduler) and issubclass(L._LRScheduler, L.LRScheduler)
    assert pickle.loads(pickle.dumps(s.state_dict()))["step_size"] == 2
    assert math.isinf(L.ReduceLROnPlateau(_optimizer(engine)).best)
