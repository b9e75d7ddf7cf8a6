"""engine.optim against torch.optim: the same parameters, the same gradients, the same numbers.

Every optimizer runs over every combination of its options for 25 steps, twice: once fed an
identical sequence of gradients (so only the update arithmetic is compared, tightly), once on a
small least-squares problem whose gradients each library computes itself. Parameters are compared
after every step; state (keys, dtypes, values) and version counters after the run.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import engine
from engine.events import hub

torch = pytest.importorskip("torch")

STEPS = 25
# Float32 updates agree to a few ulps per step; PyTorch fuses some multiply-adds (FMA), numpy
# rounds twice, so the trajectories drift apart by ~1e-7 relative per step at most. Differences
# are measured relative to each element and to the tensor's scale (an element near zero after
# cancellation has no meaningful relative error of its own).
RTOL = 2e-6


def assert_close(actual, expected, rtol=RTOL, what=""):
    assert actual.dtype == expected.dtype, what
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale, err_msg=what)


def _version(t) -> int:
    return t._version if isinstance(t._version, int) else t._version.value


def _combos(**options):
    keys = list(options)
    for values in itertools.product(*options.values()):
        yield dict(zip(keys, values))


def _sgd_cases():
    for kw in _combos(lr=[0.05], momentum=[0, 0.9], dampening=[0, 0.3], nesterov=[False, True],
                      weight_decay=[0, 0.1], maximize=[False, True]):
        if kw["nesterov"] and (kw["momentum"] == 0 or kw["dampening"] != 0):
            continue
        yield "SGD", kw


def _adam_cases(name, default_wd):
    for kw in _combos(lr=[0.01], betas=[(0.9, 0.999), (0.5, 0.9)], eps=[1e-8, 1e-2],
                      weight_decay=[default_wd, 0.1], amsgrad=[False, True],
                      maximize=[False, True]):
        yield name, kw


def _rmsprop_cases():
    for kw in _combos(lr=[0.01], alpha=[0.99, 0.6], eps=[1e-8, 1e-2], weight_decay=[0, 0.1],
                      momentum=[0, 0.9], centered=[False, True], maximize=[False, True]):
        yield "RMSprop", kw


def _adagrad_cases():
    for kw in _combos(lr=[0.1], lr_decay=[0, 0.05], weight_decay=[0, 0.1],
                      initial_accumulator_value=[0, 0.5], eps=[1e-10, 1e-2],
                      maximize=[False, True]):
        yield "Adagrad", kw


CASES = [*_sgd_cases(), *_adam_cases("Adam", 0), *_adam_cases("AdamW", 0.01),
         *_rmsprop_cases(), *_adagrad_cases()]


def _case_id(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _initial(seed=0):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((3, 4)).astype(np.float32),
            "b": rng.standard_normal(4).astype(np.float32),
            "frozen": rng.standard_normal(2).astype(np.float32)}


def _gradient_sequence(seed=1):
    rng = np.random.default_rng(seed)
    return [{"w": rng.standard_normal((3, 4)).astype(np.float32),
             "b": rng.standard_normal(4).astype(np.float32)} for _ in range(STEPS)]


def _problem(seed=2):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 3)).astype(np.float32),
            rng.standard_normal((8, 4)).astype(np.float32))


def _params(lib):
    init = _initial()
    return {k: lib.nn.Parameter(lib.tensor(v)) for k, v in init.items()}


def _run(lib, name, kw, mode):
    """Run the optimizer; returns the trajectory, the final state and version counters."""
    params = _params(lib)
    opt = getattr(lib.optim, name)(list(params.values()), **kw)
    grads = _gradient_sequence()
    x, y = _problem()
    trajectory = []
    for k in range(STEPS):
        opt.zero_grad()
        if mode == "given":
            for key, g in grads[k].items():
                params[key].grad = lib.tensor(g)
        else:
            pred = lib.tensor(x) @ params["w"] + params["b"]
            ((pred - lib.tensor(y)) ** 2).mean().backward()
        opt.step()
        trajectory.append({k2: p.detach().numpy().copy() for k2, p in params.items()})
    state = {}
    for key, p in params.items():
        if p in opt.state:
            state[key] = {sk: (str(sv.dtype), tuple(sv.shape), sv.detach().numpy().copy())
                          if hasattr(sv, "dtype") else sv for sk, sv in opt.state[p].items()}
    versions = {k2: _version(p) for k2, p in params.items()}
    return trajectory, state, versions


@pytest.mark.parametrize("mode", ["given", "autograd"])
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_trajectory_matches_torch(case, mode):
    name, kw = case
    t_traj, t_state, t_versions = _run(torch, name, kw, mode)
    e_traj, e_state, e_versions = _run(engine, name, kw, mode)
    for k, (t_step, e_step) in enumerate(zip(t_traj, e_traj)):
        for key in t_step:
            assert_close(e_step[key], t_step[key], what=f"{key} after step {k + 1}")
    # a parameter without a gradient is skipped and (except Adagrad's eager state) stateless
    assert t_state.keys() == e_state.keys()
    for key in t_state:
        assert list(t_state[key]) == list(e_state[key]), key
        for sk, (dtype, shape, value) in t_state[key].items():
            e_dtype, e_shape, e_value = e_state[key][sk]
            assert (e_dtype, e_shape) == (dtype, shape), (key, sk)
            assert_close(e_value, value, rtol=RTOL * 5, what=f"state[{key}][{sk}]")
    assert e_versions == t_versions


def test_trajectory_in_float64():
    def run(lib):
        w = lib.nn.Parameter(lib.tensor(_initial()["w"].astype(np.float64)))
        opt = lib.optim.Adam([w], lr=0.05, amsgrad=True, weight_decay=0.1)
        for g in _gradient_sequence():
            w.grad = lib.tensor(g["w"].astype(np.float64))
            opt.step()
        return w.detach().numpy().copy(), str(opt.state[w]["step"].dtype)

    (t_w, t_step), (e_w, e_step) = run(torch), run(engine)
    assert e_w.dtype == np.float64
    np.testing.assert_allclose(e_w, t_w, rtol=1e-12)
    assert e_step == t_step


# -- zero_grad -------------------------------------------------------------------------------------

@pytest.mark.parametrize("set_to_none", [True, False])
@pytest.mark.parametrize("owner", ["optimizer", "module"])
def test_zero_grad(set_to_none, owner):
    def run(lib):
        lin = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        lin(lib.ones(3, 2)).sum().backward()
        g = lin.weight.grad
        (opt if owner == "optimizer" else lin).zero_grad(set_to_none=set_to_none)
        w = lin.weight
        return (w.grad is None, w.grad is g,
                None if w.grad is None else w.grad.detach().numpy().tolist(),
                None if w.grad is None else (w.grad.requires_grad, _version(w.grad)))

    assert run(engine) == run(torch)


def test_zero_grad_default_is_set_to_none():
    p = engine.nn.Parameter(engine.ones(2))
    p.grad = engine.ones(2)
    engine.optim.SGD([p]).zero_grad()
    assert p.grad is None


def test_zero_grad_false_detaches_a_grad_with_history():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = (lib.ones(2, requires_grad=True) * 2)
        opt = lib.optim.SGD([p], lr=0.1)
        opt.zero_grad(set_to_none=False)
        return p.grad.grad_fn is None, p.grad.requires_grad, p.grad.detach().numpy().tolist()

    assert run(engine) == run(torch)


def test_step_leaves_grad_alone_and_keeps_identity():
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        g = lib.tensor([0.5, -0.5])
        p.grad = g
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        before = id(p)
        opt.step()
        return (id(p) == before, p.grad is g, p.is_leaf, p.requires_grad,
                p.detach().numpy().tolist(), _version(p))

    assert run(engine) == run(torch)


def test_none_grad_params_are_skipped_and_get_no_state():
    def run(lib, name):
        a = lib.nn.Parameter(lib.ones(2))
        b = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([a, b], lr=0.1)
        a.grad = lib.ones(2)
        opt.step()
        return sorted(k for k, p in (("a", a), ("b", b)) if p in opt.state), \
            b.detach().numpy().tolist()

    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad"):
        assert run(engine, name) == run(torch, name), name


# -- construction, groups, repr, state_dict -------------------------------------------------------

@pytest.mark.parametrize("name,kw", [
    ("SGD", {}), ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.9)}), ("AdamW", {}), ("RMSprop", {"centered": True}),
    ("Adagrad", {"lr_decay": 0.1}),
])
def test_repr_and_defaults(name, kw):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        q = lib.nn.Parameter(lib.ones(3))
        opt = getattr(lib.optim, name)([{"params": [p]}, {"params": q, "lr": 0.5}], **kw)
        return repr(opt), [{k: v for k, v in g.items() if k != "params"}
                           for g in opt.param_groups]

    assert run(engine) == run(torch)


def test_add_param_group():
    def run(lib):
        p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.5)
        opt.add_param_group({"params": [q], "lr": 0.01})
        p.grad, q.grad = lib.ones(2), lib.ones(2)
        opt.step()
        out = [len(opt.param_groups), opt.param_groups[1]["momentum"],
               q.detach().numpy().tolist(), p.detach().numpy().tolist()]
        try:
            opt.add_param_group({"params": [p]})
        except Exception as e:
            out.append((type(e).__name__, str(e)))
        return out

    assert run(engine) == run(torch)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(lib.ones(2, requires_grad=True), lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=-1),
    lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([{"params": {lib.ones(2, requires_grad=True)}}], lr=0.1),
    lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], momentum=-1),
    lambda lib: lib.optim.Adam([lib.ones(2, requires_grad=True)], weight_decay=-1),
    lambda lib: lib.optim.Adam([lib.ones(2, requires_grad=True)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adam([lib.ones(2, requires_grad=True)], eps=-1),
    lambda lib: lib.optim.RMSprop([lib.ones(2, requires_grad=True)], alpha=-1),
    lambda lib: lib.optim.Adagrad([lib.ones(2, requires_grad=True)], lr_decay=-1),
])
def test_construction_errors(make):
    def error(lib):
        with pytest.raises(Exception) as info:
            make(lib)
        return type(info.value).__name__, str(info.value).splitlines()[0]

    assert error(engine) == error(torch)


def _trained(lib, name, steps=3, **kw):
    w = lib.nn.Parameter(lib.tensor(_initial()["w"]))
    b = lib.nn.Parameter(lib.tensor(_initial()["b"]))
    opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.02}], **kw)
    for g in _gradient_sequence()[:steps]:
        w.grad, b.grad = lib.tensor(g["w"]), lib.tensor(g["b"])
        opt.step()
    return opt, w, b


def _plain(sd):
    return {"state": {k: {sk: sv.detach().numpy().tolist() for sk, sv in v.items()}
                      for k, v in sd["state"].items()},
            "param_groups": sd["param_groups"]}


@pytest.mark.parametrize("name,kw", [("SGD", {"lr": 0.1, "momentum": 0.9}),
                                     ("Adam", {"amsgrad": True}), ("RMSprop", {"centered": True}),
                                     ("Adagrad", {})])
def test_state_dict_format(name, kw):
    assert _plain(_trained(engine, name, **kw)[0].state_dict()) == \
        _plain(_trained(torch, name, **kw)[0].state_dict())


@pytest.mark.parametrize("name,kw", [("SGD", {"lr": 0.1, "momentum": 0.9}),
                                     ("Adam", {"amsgrad": True}), ("RMSprop", {"momentum": 0.5}),
                                     ("Adagrad", {})])
def test_state_dict_round_trip_continues_the_run(name, kw):
    # train 3 steps, save, load into a fresh optimizer over copies, train 3 more: the same as 6
    def run(lib):
        opt, w, b = _trained(lib, name, steps=3, **kw)
        saved = opt.state_dict()
        w2 = lib.nn.Parameter(w.detach().clone())
        b2 = lib.nn.Parameter(b.detach().clone())
        fresh = getattr(lib.optim, name)([{"params": [w2]}, {"params": [b2]}], **kw)
        fresh.load_state_dict(saved)
        for g in _gradient_sequence()[3:6]:
            w2.grad, b2.grad = lib.tensor(g["w"]), lib.tensor(g["b"])
            fresh.step()
        return (w2.detach().numpy().copy(), fresh.param_groups[1]["lr"],
                sorted(fresh.state[w2]))

    e, t = run(engine), run(torch)
    np.testing.assert_allclose(e[0], t[0], rtol=RTOL)
    assert e[1:] == t[1:]
    reference, _, _ = _trained(engine, name, steps=6, **kw)
    np.testing.assert_allclose(e[0], reference.param_groups[0]["params"][0].detach().numpy(),
                               rtol=1e-6)


def test_load_state_dict_errors():
    def run(lib):
        opt, w, b = _trained(lib, "SGD", lr=0.1)
        out = []
        for other in (lib.optim.SGD([w, b], lr=0.1),
                      lib.optim.SGD([{"params": [w]},
                                     {"params": [b, lib.nn.Parameter(lib.ones(1))]}])):
            try:
                other.load_state_dict(opt.state_dict())
            except ValueError as e:
                out.append(str(e))
        return out

    assert run(engine) == run(torch)


def test_closure_is_called_with_grad_enabled():
    def run(lib):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.SGD([w], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        return loss.item(), w.detach().numpy().tolist()

    assert run(engine) == run(torch)


# -- events ----------------------------------------------------------------------------------------

def test_events_report_updates_state_and_zeroing():
    w = engine.nn.Parameter(engine.tensor([1.0, 2.0]))
    frozen = engine.nn.Parameter(engine.tensor([3.0]))
    opt = engine.optim.Adam([w, frozen], lr=0.1)
    events = []
    unsubscribe = hub.subscribe(events.append)
    try:
        w.grad = engine.tensor([0.5, 0.5])
        opt.step()
        opt.zero_grad(set_to_none=False)
        opt.zero_grad()
    finally:
        unsubscribe()
    kinds = [e.kind for e in events]
    assert kinds == ["param_updated", "optimizer_state_changed", "grad_zeroed", "grad_zeroed"]
    updated = events[0].payload
    assert updated["tensor"] is w and updated["optimizer"] is opt
    np.testing.assert_array_equal(updated["before"], [1.0, 2.0])
    assert not np.array_equal(updated["before"], w.detach().numpy())
    assert events[1].payload == {"optimizer": opt, "param": w}
    assert [e.payload["set_to_none"] for e in events[2:]] == [False, True]
    assert all(e.payload["tensor"] is w for e in events[2:])


def test_no_events_without_listeners():
    # the optimizer must not copy parameters for a debugger nobody runs
    assert not hub.active
    w = engine.nn.Parameter(engine.tensor([1.0]))
    w.grad = engine.tensor([1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.optim.SGD([w], lr=0.5).step()
    assert w.item() == 0.5


def test_named_parameters_keep_their_names():
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        opt = lib.optim.Adam(net.named_parameters(), lr=0.1)
        sd = opt.state_dict()
        return sd["param_groups"], repr(opt)

    assert run(engine) == run(torch)


# -- the fused arithmetic --------------------------------------------------------------------------

@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() == "DEFAULT",
                    reason="torch fuses multiply-adds only in its vectorised kernels")
def test_fused_updates_round_like_torch_bit_for_bit():
    from engine.optim import arith

    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(4099).astype(np.float32) for _ in range(3))
    T = torch.from_numpy

    def torch_result(op):
        t = T(a.copy())
        op(t)
        return t.numpy()

    cases = [
        (lambda t: t.add_(T(b), alpha=-0.3), lambda x: arith.add_scaled_(x, b, -0.3)),
        (lambda t: t.addcmul_(T(b), T(c), value=0.7), lambda x: arith.addcmul_(x, b, c, 0.7)),
        (lambda t: t.lerp_(T(b), 0.1), lambda x: arith.lerp_(x, b, 0.1)),
        (lambda t: t.lerp_(T(b), 0.9), lambda x: arith.lerp_(x, b, 0.9)),
        (lambda t: t.addcdiv_(T(b), T(np.abs(c) + 1), value=-0.2),
         lambda x: arith.addcdiv_(x, b, np.abs(c) + 1, -0.2)),
    ]
    for torch_op, engine_op in cases:
        ours = a.copy()
        engine_op(ours)
        np.testing.assert_array_equal(ours, torch_result(torch_op))


def test_large_parameters_take_the_fast_path_and_stay_close():
    from engine.ops.fused import EXACT_LIMIT as EXACT_FMA_LIMIT

    rng = np.random.default_rng(4)
    init = rng.standard_normal((300, 300)).astype(np.float32)
    assert init.size > EXACT_FMA_LIMIT
    grads = [rng.standard_normal((300, 300)).astype(np.float32) for _ in range(20)]

    def run(lib):
        w = lib.nn.Parameter(lib.tensor(init))
        opt = lib.optim.Adam([w], lr=0.01, weight_decay=0.1)
        for g in grads:
            w.grad = lib.tensor(g)
            opt.step()
        return w.detach().numpy().copy()

    assert_close(run(engine), run(torch))
