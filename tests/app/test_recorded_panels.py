"""Every panel works in a replay: a real PyTorch run recorded, opened in the window, and walked
through its iterations (Training curves, Gradient Buffers, Optimizer state and update rule).

The recordings are made here with torch (skipped without it); the window never imports torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.window_support import position, status, wait_idle

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # torch's pool spins on a busy shared machine

import engine.record as record
from engine.session.events import Status

pytestmark = pytest.mark.torch

ITERATIONS = 3


def _run(tmp_path, make_optimizer, name):
    """Three recorded iterations of an MLP; what torch had after each (losses, grads, state)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = make_optimizer(model.parameters())
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, -2.0, 1.0]])
    y = torch.tensor([[1.0], [-1.0], [0.5]])
    names = {p: f"model.{n}" for n, p in model.named_parameters()}
    path = tmp_path / f"{name}.gstep"
    seen = []
    with record.session(path, model=model, optimizer=opt, model_prefix="model",
                        optimizer_name="opt"):
        for _ in range(ITERATIONS):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            grads = {names[p]: p.grad.numpy().copy() for p in model.parameters()}
            values = {names[p]: p.detach().numpy().copy() for p in model.parameters()}
            opt.step()
            state = {names[p]: {k: (v.numpy().copy() if torch.is_tensor(v) else v)
                                for k, v in s.items()} for p, s in opt.state.items()}
            seen.append({"loss": loss.item(), "grads": grads, "values": values, "state": state})
    return path, seen


@pytest.fixture
def adam_run(tmp_path):
    return _run(tmp_path, lambda ps: torch.optim.Adam(ps, lr=0.05), "adam")


@pytest.fixture
def sgd_run(tmp_path):
    return _run(tmp_path, lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), "sgd")


def _open(qtbot, make_window, path):
    window = make_window(open_demo=False)
    qtbot.waitUntil(lambda: bool(window.panels))
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    return window


def _go_to(qtbot, window, index):
    window.panels["timeline"].go_to(index)
    wait_idle(qtbot, window)


def _iteration_start(window, i):
    """The timeline point of iteration ``i``'s backward, done (before its optimizer step)."""
    session = window.controller.session
    return i * (session.steps_per_backward + 1) + session.steps_per_backward


def _loss_curve(window):
    xs, ys = window.panels["training"].curves[("loss", "loss")].getData()
    return list(xs), list(ys)


def _check_iteration(window, i, seen):
    """At iteration ``i`` (0-based) after its backward: the panels show what torch had then."""
    assert position(window).iteration == i
    xs, ys = _loss_curve(window)
    assert xs == list(range(1, i + 2))  # one point per iteration so far, counted from 1
    np.testing.assert_allclose(ys, [s["loss"] for s in seen[:i + 1]], rtol=1e-6)
    norms = window.panels["training"].curves[("norm", "model.0.weight")].getData()[1]
    np.testing.assert_allclose(norms, [np.linalg.norm(s["grads"]["model.0.weight"])
                                       for s in seen[:i + 1]], rtol=1e-5)
    buffers = window.panels["buffers"]
    for name, grad in seen[i]["grads"].items():
        np.testing.assert_array_equal(buffers.row(name).grad, grad)
        assert "recorded" in buffers.row(name).note
    optimizer = window.panels["optimizer"]
    assert optimizer.groups and optimizer.groups[0].optimizer_name == "opt"
    for name in seen[i]["grads"]:
        param = optimizer.param(name)
        state = dict(param.state)
        if i == 0:  # before the first step(): no state yet, no rule
            assert state == {} and param.rule is None
            continue
        torch_state = seen[i - 1]["state"][name]  # this iteration's backward ran after step i-1
        assert set(state) == set(torch_state)
        for key, value in torch_state.items():
            np.testing.assert_array_equal(np.asarray(state[key]), np.asarray(value))
        rule = param.rule
        assert rule is not None and rule.matches is True  # the rule reproduces torch's step
        np.testing.assert_array_equal(rule.before, seen[i - 1]["values"][name])
        np.testing.assert_array_equal(rule.after, seen[i]["values"][name])


def _walk(qtbot, window, seen, kind, state_keys):
    assert status(window) == Status.FINISHED
    for i in range(ITERATIONS):
        _go_to(qtbot, window, _iteration_start(window, i))
        _check_iteration(window, i, seen)
        if i:
            text = window.panels["optimizer"].rule_text()
            assert f"({kind})" in text and "with the numbers:" in text
            assert "✓ reproduces the optimizer's update" in text
            assert all(key in dict(window.panels["optimizer"].param("model.0.weight").state)
                       for key in state_keys)
    _go_to(qtbot, window, _iteration_start(window, 0))  # back to iteration 1: its values again
    _check_iteration(window, 0, seen)
    assert window.panels["training"].status.text().startswith("1 iteration,")


def test_adam_replay_fills_every_panel(qtbot, make_window, adam_run):
    path, seen = adam_run
    window = _open(qtbot, make_window, path)
    # the end: three losses, the state after the last step() with its rule (nothing to check)
    xs, ys = _loss_curve(window)
    np.testing.assert_allclose(ys, [s["loss"] for s in seen], rtol=1e-6)
    param = window.panels["optimizer"].param("model.0.weight")
    for key, value in seen[-1]["state"]["model.0.weight"].items():
        np.testing.assert_array_equal(np.asarray(dict(param.state)[key]), np.asarray(value))
    assert param.rule is not None and param.rule.matches is None
    assert "exp_avg" in window.panels["optimizer"].rule_text()
    ratios = window.panels["training"].curves[("ratio", "model.0.weight")].getData()[1]
    assert len(ratios) == ITERATIONS - 1  # the last step's value after was not recorded
    _walk(qtbot, window, seen, "Adam", ("exp_avg", "exp_avg_sq", "step"))


def test_sgd_momentum_replay_fills_every_panel(qtbot, make_window, sgd_run):
    path, seen = sgd_run
    window = _open(qtbot, make_window, path)
    _walk(qtbot, window, seen, "SGD", ("momentum_buffer",))
    _go_to(qtbot, window, _iteration_start(window, 2))
    text = window.panels["optimizer"].rule_text()
    assert "buf = momentum * buf_prev + (1 - dampening) * grad" in text
    assert "buf_prev = " in text


def test_the_timeline_compares_optimizer_state_between_iterations(qtbot, make_window, adam_run):
    path, _ = adam_run
    window = _open(qtbot, make_window, path)
    timeline = window.panels["timeline"]
    deltas = timeline.compare(_iteration_start(window, 1), _iteration_start(window, 2))
    assert any("exp_avg" in str(d) for d in deltas)
