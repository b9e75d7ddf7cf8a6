"""``gradstep record --iterations 3 --open``: the recording opens in the window, with its three
iterations in every panel (Training, Gradient Buffers, Optimizer, Timeline).

``--open`` starts the window as a program of its own (``gradstep FILE``, else ``python -m app
FILE``), which parses its command line and calls ``MainWindow.open_path(FILE)``; here the
program's command line is caught at ``Popen`` and the same call is made in a test window.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.app.window_support import wait_idle

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # shared machine: torch's pool spins when the cores are busy

from app.launch import _parse
from engine.cli import main as cli_main
from engine.record import command

pytestmark = pytest.mark.torch

SCRIPT = textwrap.dedent('''
    import torch


    def train(seen=None):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        opt = torch.optim.Adam(net.parameters(), lr=0.05)
        x, y = torch.randn(6, 3), torch.randn(6, 1)
        for _ in range(5):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            if seen is not None:
                seen(net, opt, loss)
            opt.step()
        return net, opt


    if __name__ == "__main__":
        train()
''')


def _truth():
    """Per iteration: torch's loss and grads; and its optimizer's state after the third step."""
    namespace: dict = {}
    exec(compile(SCRIPT, "train.py", "exec"), namespace)  # the script's own loop, not __main__
    seen, after_third = [], {}

    def keep(net, opt, loss):
        names = {p: f"net.{n}" for n, p in net.named_parameters()}
        if len(seen) == 3:  # the fourth backward: opt.state is what the third step left
            after_third.update({names[p]: {k: v.numpy().copy() for k, v in s.items()}
                                for p, s in opt.state.items()})
        seen.append((loss.item(), {names[p]: p.grad.numpy().copy() for p in names}))

    namespace["train"](keep)
    return seen[:3], after_third


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """``gradstep record --iterations 3 --open`` run; the window program's command line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANK", raising=False)
    launched = []

    class Popen:  # the window program, not started: its command line is kept
        def __init__(self, cmd, **kw):
            launched.append(list(cmd))

    monkeypatch.setattr(command.subprocess, "Popen", Popen)
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    output = tmp_path / "train.gstep"
    assert cli_main(["record", "--iterations", "3", "--open", "--output", str(output),
                     str(script)]) == 0
    return output, launched


def test_record_open_shows_three_iterations_in_every_panel(qtbot, make_window, recorded):
    output, launched = recorded
    assert len(launched) == 1
    cmd = launched[0]
    program_args = cmd[3:] if cmd[1:3] == ["-m", "app"] else cmd[1:]  # python -m app / gradstep
    assert cmd[1:3] == ["-m", "app"] or cmd[0].endswith("gradstep")
    args = _parse(program_args)  # what the window program does with its command line
    assert args.file == str(output)

    window = make_window(open_demo=False)
    qtbot.waitUntil(lambda: bool(window.panels))
    assert window.open_path(args.file)
    wait_idle(qtbot, window)
    seen, after_third = _truth()
    session = window.controller.session
    assert session.is_recorded and session.iteration_count == 3

    training = window.panels["training"]
    qtbot.waitUntil(lambda: training.drawn_iterations == 3)
    xs, ys = training.curves[("loss", "loss")].getData()
    assert list(xs) == [1.0, 2.0, 3.0]  # counted from 1, as the status bar counts
    np.testing.assert_allclose(ys, [loss for loss, _ in seen], rtol=1e-6)
    assert training.status.text().startswith("3 iterations")
    for name, grad in seen[-1][1].items():
        norms = training.curves[("norm", name)].getData()[1]
        assert len(norms) == 3
        np.testing.assert_allclose(norms[-1], np.linalg.norm(grad), rtol=1e-5)

    buffers = window.panels["buffers"]
    for name, grad in seen[-1][1].items():
        np.testing.assert_array_equal(buffers.row(name).grad, grad)

    optimizer = window.panels["optimizer"]
    for name, state in after_third.items():
        shown = dict(optimizer.param(name).state)
        assert set(shown) == set(state) == {"step", "exp_avg", "exp_avg_sq"}
        for key, value in state.items():
            np.testing.assert_array_equal(np.asarray(shown[key]), value)

    timeline = window.panels["timeline"]
    per = session.steps_per_backward + 1
    assert len(timeline.points) == 3 * per + 1
    assert sum("backward" in p.markers for p in timeline.points) == 3
    assert timeline.current == len(timeline.points) - 1  # it opens at the end
