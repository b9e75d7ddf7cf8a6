"""engine.optim.LBFGS against torch.optim.LBFGS: the same closures, the same numbers.

Each problem runs a few ``step(closure)`` calls in both libraries; after every step the loss
``step`` returned, the parameters, their version counters, the closure's call count and the whole
state (``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
``prev_flat_grad``, ``prev_loss``, ``al``: types, dtypes, shapes, values, the None slots of
``al``) are compared.

How close: on problems of two float32 numbers every operation L-BFGS runs is one the engine
reproduces bit for bit (the dot products of 2-vectors add in the same order, the fused
``add_(x, alpha=)`` is rounded once), so those trajectories are compared exactly. Float64 fused
adds round twice in the engine (one ulp, see engine/optim/arith.py), and dot products of longer
vectors are MKL's in torch and OpenBLAS's in numpy (a few ulps): those runs are compared to a
relative tolerance.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine
from engine.events import OPTIMIZER_STATE_CHANGED, PARAM_UPDATED, hub

torch = pytest.importorskip("torch")


# -- problems: each builds its parameters and a closure over them ----------------------------------

def _rosenbrock_of(x):
    return lambda: (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _rosenbrock(lib, dtype):
    x = lib.tensor([-1.5, 2.0], dtype=getattr(lib, dtype), requires_grad=True)
    return [x], [_rosenbrock_of(x)]


def _closure(opt, losses, calls=None):
    """The closure every run uses: zero the grads, one backward per loss, their sum returned."""
    def closure():
        if calls is not None:
            calls.append(1)
        opt.zero_grad()
        total = None
        for make in losses:
            loss = make()
            loss.backward()
            total = loss if total is None else total + loss
        return total

    return closure


def _quadratic(lib, dtype):
    a = lib.tensor([[3.0, 0.5], [0.5, 1.0]], dtype=getattr(lib, dtype))
    b = lib.tensor([1.0, -2.0], dtype=getattr(lib, dtype))
    x = lib.tensor([0.7, 0.3], dtype=getattr(lib, dtype), requires_grad=True)

    def loss():
        return 0.5 * (x @ (a @ x)) - b @ x

    return [x], [loss]


def _two_parameters(lib, dtype):
    # one number in each of two tensors: the flat vector has two elements, the state still lives
    # on the first parameter
    u = lib.tensor([0.5], dtype=getattr(lib, dtype), requires_grad=True)
    v = lib.tensor(2.0, dtype=getattr(lib, dtype), requires_grad=True)

    def loss():
        return (u * v - 1) ** 2 + 0.1 * (u - v) ** 2

    return [u, v], [loss]


def _two_backwards(lib, dtype):
    # a closure that calls backward twice: the gradient L-BFGS reads is the sum of both
    x = lib.tensor([1.2, -0.4], dtype=getattr(lib, dtype), requires_grad=True)

    def first():
        return ((x - 1) ** 2).sum()

    def second():
        return (x[0] * x[1] - 0.5) ** 2

    return [x], [first, second]


def _mlp(lib, dtype):
    rng = np.random.default_rng(0)
    dt = getattr(lib, dtype)
    inputs = lib.tensor(rng.standard_normal((16, 3)), dtype=dt)
    targets = lib.tensor(np.sin(rng.standard_normal((16, 1))), dtype=dt)
    w1 = lib.tensor(rng.standard_normal((3, 8)) * 0.5, dtype=dt, requires_grad=True)
    b1 = lib.tensor(np.zeros(8), dtype=dt, requires_grad=True)
    w2 = lib.tensor(rng.standard_normal((8, 1)) * 0.5, dtype=dt, requires_grad=True)
    b2 = lib.tensor(np.zeros(1), dtype=dt, requires_grad=True)

    def loss():
        hidden = lib.tanh(inputs @ w1 + b1)
        return lib.nn.functional.mse_loss(hidden @ w2 + b2, targets)

    return [w1, b1, w2, b2], [loss]


def _one_unused(lib, dtype):
    # the first parameter (where the state lives) takes no gradient: its part of the flat
    # gradient is zeros, it moves by nothing, and its version counter still counts the adds
    unused = lib.tensor([1.0, 2.0, 3.0], dtype=getattr(lib, dtype), requires_grad=True)
    x = lib.tensor([0.3, -0.2], dtype=getattr(lib, dtype), requires_grad=True)
    return [unused, x], [lambda: ((x - 1) ** 2).sum() + (x[0] * x[1]) ** 2]


PROBLEMS = {"rosenbrock": _rosenbrock, "quadratic": _quadratic, "two_parameters": _two_parameters,
            "two_backwards": _two_backwards, "one_unused": _one_unused, "mlp": _mlp}
# two float32 numbers (zeros besides): every dot product adds as torch's does
EXACT = ("rosenbrock", "quadratic", "two_parameters", "two_backwards", "one_unused")


# -- running and describing ------------------------------------------------------------------------

def _describe(value):
    if hasattr(value, "detach"):
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                value.detach().numpy().copy())
    if isinstance(value, list):
        return ("list", [_describe(v) for v in value])
    return ("py", type(value).__name__, value)


def _version(t) -> int:
    return t._version if isinstance(t._version, int) else t._version.value


def _run(lib, problem, dtype="float32", steps=4, **kw):
    params, losses = PROBLEMS[problem](lib, dtype)
    calls = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt = lib.optim.LBFGS(params, **kw)
        closure = _closure(opt, losses, calls)
        out = []
        for _ in range(steps):
            returned = opt.step(closure)
            out.append({
                "loss": float(returned.detach()),
                "params": [p.detach().numpy().copy() for p in params],
                "versions": [_version(p) for p in params],
                "calls": len(calls),
                "state": {str(k): _describe(v) for k, v in opt.state[params[0]].items()},
                "others": [dict(opt.state[p]) for p in params[1:] if p in opt.state],
            })
    return out, [(w.category.__name__, str(w.message)) for w in caught]


def _same(expected, actual, rtol, path):
    if isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, path
        if rtol == 0:
            assert np.array_equal(actual, expected), f"{path}: {actual!r} != {expected!r}"
        else:
            scale = float(np.max(np.abs(expected))) if expected.size else 0.0
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale,
                                       err_msg=path)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for k in expected:
            _same(expected[k], actual[k], rtol, f"{path}.{k}")
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected), \
            f"{path}: {actual!r} != {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _same(e, a, rtol, f"{path}[{i}]")
    elif isinstance(expected, float) and rtol:
        assert isinstance(actual, float) and abs(actual - expected) <= rtol * abs(expected), \
            f"{path}: {actual!r} != {expected!r}"
    else:
        assert type(actual) is type(expected) and actual == expected, \
            f"{path}: engine {actual!r} != torch {expected!r}"


def _compare(problem, dtype="float32", rtol=0, steps=4, **kw):
    expected, t_warnings = _run(torch, problem, dtype, steps, **kw)
    actual, e_warnings = _run(engine, problem, dtype, steps, **kw)
    assert e_warnings == t_warnings
    for k, (e, a) in enumerate(zip(expected, actual)):
        _same(e, a, rtol, f"step {k}")
    return expected


# -- trajectories ----------------------------------------------------------------------------------

OPTIONS = [
    {},
    {"lr": 0.1},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 1},
    {"history_size": 2, "max_iter": 5},
    {"history_size": 3, "line_search_fn": "strong_wolfe", "max_iter": 7},
    {"lr": 0.5, "max_iter": 3, "max_eval": 2},
    {"max_eval": 6, "line_search_fn": "strong_wolfe"},
    {"tolerance_change": 1e-2},
    {"tolerance_grad": 1e-2, "line_search_fn": "strong_wolfe"},
]


def _id(kw):
    return "-".join(f"{k}={v}" for k, v in kw.items()) or "defaults"


@pytest.mark.parametrize("kw", OPTIONS, ids=_id)
@pytest.mark.parametrize("problem", EXACT)
def test_float32_two_number_problems_match_torch_bit_for_bit(problem, kw):
    _compare(problem, **kw)


@pytest.mark.parametrize("kw", OPTIONS, ids=_id)
@pytest.mark.parametrize("problem", ["rosenbrock", "two_backwards", "mlp"])
def test_float64_matches_torch_to_rounding(problem, kw):
    # one-ulp differences grow along a trajectory (Rosenbrock's valley amplifies them most): two
    # steps of up to 20 iterations stay within 1e-8 of torch's
    _compare(problem, "float64", rtol=1e-7, steps=2, **kw)


@pytest.mark.parametrize("kw", [{}, {"line_search_fn": "strong_wolfe"}, {"history_size": 2}],
                         ids=_id)
def test_float32_mlp_matches_torch_to_rounding(kw):
    # float32 matrix products and dot products of 8-40 numbers round differently in MKL and in
    # numpy, and L-BFGS's curvature pairs amplify that: five iterations a step keep it to 1e-4
    _compare("mlp", "float32", rtol=2e-3, steps=3, max_iter=5, **kw)


def test_the_runs_reach_what_the_options_promise():
    # the cases above must exercise each way out of step(): the history is full and shifts, a
    # tolerance stops it early, max_eval ends the line search
    shifted = _compare("rosenbrock", history_size=2)[-1]["state"]
    assert len(shifted["old_dirs"][1]) == 2 and shifted["n_iter"][2] > 3
    early = _compare("quadratic", tolerance_grad=1e-2, line_search_fn="strong_wolfe")
    assert early[0]["state"]["n_iter"][2] < 20 and early[-1]["calls"] == early[-2]["calls"] + 1
    assert "d" not in _compare("quadratic", tolerance_grad=1e3, steps=1)[0]["state"]
    capped = _compare("rosenbrock", max_eval=6, line_search_fn="strong_wolfe", steps=1)
    assert capped[0]["calls"] <= 6 + 1


def test_tensor_learning_rate():
    def run(lib):
        x = lib.tensor([-1.5, 2.0], requires_grad=True)
        opt = lib.optim.LBFGS([x], lr=lib.tensor([0.25]), max_iter=4)
        closure = _closure(opt, [_rosenbrock_of(x)])
        opt.step(closure)
        opt.step(closure)
        return x.detach().numpy().copy(), _describe(opt.state[x]["t"])

    (ex, et), (ax, at) = run(torch), run(engine)
    assert np.array_equal(ax, ex)
    _same(et, at, 0, "t")


# -- API: construction, errors, repr, state_dict ---------------------------------------------------

def _error(fn):
    try:
        fn()
    except Exception as e:  # the type and message are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("make", [
    lambda lib, p, q: lib.optim.LBFGS([{"params": [p]}, {"params": [q], "lr": 0.1}]),
    lambda lib, p, q: lib.optim.LBFGS([p], lr=-1),
    lambda lib, p, q: lib.optim.LBFGS([p], lr=lib.tensor([0.1, 0.2])),
    lambda lib, p, q: lib.optim.LBFGS(p),
    lambda lib, p, q: lib.optim.LBFGS([]),
    lambda lib, p, q: lib.optim.LBFGS([p]).step(),
    lambda lib, p, q: lib.optim.LBFGS([p], line_search_fn="armijo").step(
        lambda: (p * p).sum().backward() or (p * p).sum()),
], ids=["groups", "negative_lr", "tensor_lr_size", "a_tensor", "empty", "no_closure",
        "unknown_line_search"])
def test_errors_match_torch(make):
    def attempt(lib):
        p = lib.ones(2, requires_grad=True)
        q = lib.ones(3, requires_grad=True)
        return _error(lambda: make(lib, p, q))

    expected = attempt(torch)
    assert expected is not None
    assert attempt(engine) == expected


def test_repr_param_groups_and_class():
    def run(lib):
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.LBFGS([p], lr=0.5, max_iter=7, line_search_fn="strong_wolfe")
        return (repr(opt), [{k: v for k, v in g.items() if k != "params"}
                            for g in opt.param_groups], type(opt).__module__.split(".")[-1],
                type(opt).__name__, str(type(opt)))

    assert run(engine) == run(torch)


def test_duplicate_parameters_warn_and_count_twice():
    def run(lib):
        p = lib.tensor([0.3, -0.2], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            opt = lib.optim.LBFGS([p, p], max_iter=3)
            opt.step(_closure(opt, [lambda: ((p - 1) ** 2).sum()]))
        return [str(w.message) for w in caught], p.detach().numpy().copy(), _version(p)

    expected, actual = run(torch), run(engine)
    assert actual[0] == expected[0] and actual[2] == expected[2]
    assert np.array_equal(actual[1], expected[1])


def _trained(lib, steps, **kw):
    params, losses = _rosenbrock(lib, "float32")
    opt = lib.optim.LBFGS(params, **kw)
    closure = _closure(opt, losses)
    for _ in range(steps):
        opt.step(closure)
    return opt, params[0], closure


def test_state_dict_matches_torch():
    def run(lib):
        opt, _, _ = _trained(lib, 2, history_size=3, max_iter=4)
        sd = opt.state_dict()
        return ({k: _describe(v) for k, v in sd["state"][0].items()}, list(sd["state"]),
                sd["param_groups"])

    e_state, e_keys, e_groups = run(engine)
    t_state, t_keys, t_groups = run(torch)
    _same(t_state, e_state, 0, "state")
    assert (e_keys, e_groups) == (t_keys, t_groups)


@pytest.mark.parametrize("kw", [{"history_size": 2, "max_iter": 5},
                                {"line_search_fn": "strong_wolfe", "max_iter": 4}], ids=_id)
def test_state_dict_round_trip_continues_the_run(kw):
    def run(lib):
        opt, x, _ = _trained(lib, 2, **kw)
        x2 = lib.tensor(x.detach().numpy().copy(), requires_grad=True)
        fresh = lib.optim.LBFGS([x2], **kw)
        fresh.load_state_dict(opt.state_dict())
        closure = _closure(fresh, [_rosenbrock_of(x2)])
        fresh.step(closure)
        fresh.step(closure)
        # the loaded history is the fresh optimizer's own: the saved one kept its length
        return (x2.detach().numpy().copy(), len(opt.state[x]["old_dirs"]),
                {k: _describe(v) for k, v in fresh.state[x2].items()})

    expected, actual = run(torch), run(engine)
    assert np.array_equal(actual[0], expected[0]) and actual[1] == expected[1]
    _same(expected[2], actual[2], 0, "state")


# -- the debugger's events -------------------------------------------------------------------------

def test_events_one_update_per_parameter_per_step():
    params, losses = _two_parameters(engine, "float32")
    opt = engine.optim.LBFGS(params, max_iter=5)
    closure = _closure(opt, losses)
    seen = []

    def watch(event):
        if event.kind in (PARAM_UPDATED, OPTIMIZER_STATE_CHANGED, "grad_zeroed",
                          "backward_started"):
            p = event.payload
            who = p.get("tensor", p.get("param"))
            seen.append((event.kind, next((i for i, q in enumerate(params) if q is who), None),
                         None if "before" not in p else p["before"].copy()))

    starts = [p.detach().numpy().copy() for p in params]
    unsubscribe = hub.subscribe(watch)
    try:
        opt.step(closure)
    finally:
        unsubscribe()
    kinds = [k for k, _, _ in seen]
    # the closure ran five times (zero_grad of the two grads, then a backward), then the step
    # told its two updates and the state's change, which lives on the first parameter
    assert kinds.count("backward_started") == opt.state[params[0]]["func_evals"] == 5
    assert kinds[-3:] == [PARAM_UPDATED, OPTIMIZER_STATE_CHANGED, PARAM_UPDATED]
    assert [i for k, i, _ in seen[-3:]] == [0, 0, 1]
    assert PARAM_UPDATED not in kinds[:-3]
    for (_, i, before), start in zip([seen[-3], seen[-1]], starts):
        assert np.array_equal(before, start) and not np.array_equal(before, params[i]._data)
