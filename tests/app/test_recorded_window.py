"""A file recorded from real PyTorch opens in the window and its backward replays step by step.

The recording is made here with torch (skipped without it); the window itself never imports torch.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.window_support import click_node, position, status, trigger, wait_idle

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # torch's pool spins on a busy shared machine

import engine.record as record
from app.inspector import array_text
from engine.session.events import Status

pytestmark = pytest.mark.torch


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))


@pytest.fixture
def one_backward(tmp_path):
    """A small MLP's loss.backward() recorded, with t1 (the first layer's output) retained."""
    model = _mlp()
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, -2.0, 1.0]])
    y = torch.tensor([[1.0], [-1.0], [0.5]])
    t1 = model[0](x)
    t1.retain_grad()
    loss = (model[2](torch.tanh(t1)) - y).pow(2).mean()
    path = tmp_path / "mlp.gstep"
    record.record_backward(loss, path, names={"x": x, "t1": t1, "loss": loss}, model=model,
                           model_prefix="model")
    grads = {"t1": t1.grad.numpy().copy()}
    grads.update({f"model.{n}": p.grad.numpy().copy() for n, p in model.named_parameters()})
    return path, grads


@pytest.fixture
def three_iterations(tmp_path):
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    y = torch.tensor([[1.0], [-1.0]])
    path = tmp_path / "run.gstep"
    seen = []
    with record.session(path, model=model, optimizer=opt, model_prefix="model"):
        for _ in range(3):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            seen.append({f"model.{n}": p.grad.numpy().copy() for n, p in model.named_parameters()})
            opt.step()
    return path, seen


def _open(qtbot, make_window, path):
    window = make_window(open_demo=False)
    qtbot.waitUntil(lambda: bool(window.panels))
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    return window


def test_f11_replays_the_recorded_backward_to_torchs_grads(qtbot, make_window, one_backward):
    path, grads = one_backward
    window = _open(qtbot, make_window, path)
    assert status(window) == Status.FINISHED  # opens showing the whole recording
    buffers = window.panels["buffers"]
    np.testing.assert_array_equal(buffers.row("model.0.weight").grad, grads["model.0.weight"])
    window.actions_by_id["view.unfold_all"].trigger()
    player = window.controller.session
    steps = player.steps(0)
    n = len(steps)

    trigger(qtbot, window, "debug.step_into")  # after the end, F11 starts the replay over
    assert status(window) == Status.PAUSED and position(window).backward_step == (0, n)
    assert window.status.position.text() == f"replay step 0 of {n}"
    assert buffers.row("model.0.weight").grad is None
    for k, step in enumerate(steps, start=1):
        trigger(qtbot, window, "debug.step_into")
        assert position(window).backward_step == (k, n)
        assert window.status.position.text() == f"replay step {k} of {n}"
        assert window.graph_view.executing == step.node_id  # PyTorch's order, node by node
        for leaf, grad in step.leaf_writes:  # the buffer panel shows each grad as it is written
            np.testing.assert_array_equal(buffers.row(leaf[2:]).grad, grad)
        if k == 3:
            node = steps[1].node_id  # ran at step 2: the inspector shows what it sent
            click_node(qtbot, window, node)
            assert "outgoing grads" in window.inspector.facts
            assert "incoming grad" in window.inspector.facts
            window.actions_by_id["view.fit"].trigger()
            from tests.app.test_screenshots import shoot

            shoot(window, "10_recorded_replay_step_3")

    for name, grad in grads.items():
        click_node(qtbot, window, f"t:{name}")
        np.testing.assert_array_equal(window.inspector.graph.nodes[f"t:{name}"]["grad"], grad)
        assert window.inspector.facts["grad"].startswith(array_text(grad))
    trigger(qtbot, window, "debug.step_into")
    assert status(window) == Status.FINISHED


def test_next_iteration_shows_the_next_recorded_iterations_tensors(qtbot, make_window,
                                                                    three_iterations):
    path, seen = three_iterations
    window = _open(qtbot, make_window, path)
    trigger(qtbot, window, "debug.step_into")  # the start: iteration 1, before its backward
    assert position(window).iteration == 0
    trigger(qtbot, window, "debug.next_iteration")
    assert position(window).iteration == 1
    assert window.status.position.text().startswith("iteration 2 · replay step 0 of")
    trigger(qtbot, window, "debug.continue")  # to the end of the recording
    assert status(window) == Status.FINISHED
    for name, grad in seen[-1].items():
        np.testing.assert_array_equal(window.panels["buffers"].row(name).grad, grad)
    timeline = window.panels["timeline"]
    assert len(timeline.points) == len(window.controller.session.timeline)
    timeline.go_to(1)  # iteration 1, after its first node
    wait_idle(qtbot, window)
    assert position(window).iteration == 0 and position(window).backward_step[0] == 1


def test_a_panel_click_selects_the_tensor_once(qtbot, make_window, one_backward, monkeypatch):
    path, _ = one_backward
    window = _open(qtbot, make_window, path)
    calls = []
    select = window.graph_view.select
    monkeypatch.setattr(window.graph_view, "select",
                        lambda node_id, **kw: calls.append(node_id) or select(node_id, **kw))
    window.panels["buffers"]._select("model.0.weight")  # both paths are direct connections
    assert calls == ["t:model.0.weight"]
