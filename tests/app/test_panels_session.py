"""The panels on the real thing: ``app.controller.SessionController`` running an
``engine.session.Session`` on its worker thread (scenarios 2 and 3, time travel, Run N and Stop).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from app.panels import (
    GradientBufferPanel,
    OptimizerPanel,
    TimelinePanel,
    TrainingPlotsPanel,
)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "panels"

SCENARIO = """\
import torch
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
loss = (w * w).sum()
loss.backward()
loss = (w * w).sum()
loss.backward()
opt.step()
opt.zero_grad()
loss = (w * 3).sum()
loss.backward()
opt.step()
print(w)
"""


def make(qtbot, cls, controller):
    panel = cls(controller)
    qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
    panel.show()
    return panel


def settle(controller) -> None:
    assert controller.wait_idle(20_000)


def to_line(controller, line: int) -> None:
    controller.run_to_line(line)
    settle(controller)
    assert controller.snapshot.status == "paused"
    assert controller.snapshot.pause.position.line == line


def test_scenarios_2_and_3_on_the_real_session(qtbot, controller):
    assert controller.load_source(SCENARIO)
    settle(controller)
    buffers = make(qtbot, GradientBufferPanel, controller)
    optimizer = make(qtbot, OptimizerPanel, controller)
    timeline = make(qtbot, TimelinePanel, controller)

    to_line(controller, 8)  # both backward() calls ran, opt.step() is next
    row = buffers.row("w")
    assert [c.label for c in row.contributions] == ["backward #1", "backward #2"]
    np.testing.assert_array_equal(row.grad, [4.0, 8.0, 12.0])
    assert buffers.item("w").child(1).text(0) == "+ backward #2"

    to_line(controller, 9)  # stepped over opt.step(): parameters changed, .grad did not
    assert not buffers.row("w").changed
    param = optimizer.param("w")
    assert param.at_step and param.rule.matches
    np.testing.assert_allclose(param.rule.after, [0.6, 1.2, 1.8], rtol=1e-6)
    np.testing.assert_allclose(dict(param.state)["momentum_buffer"], [4.0, 8.0, 12.0])
    assert "w_new = w - Δ = [1, 2, 3] - [0.4, 0.8, 1.2] = [0.6, 1.2, 1.8]" in \
        optimizer.rule_text()

    to_line(controller, 10)  # opt.zero_grad(): None, PyTorch's default
    assert buffers.row("w").state == "none"
    assert buffers.note.isVisibleTo(buffers)

    to_line(controller, 13)  # the second step reads the buffer of the first
    assert "buf_prev = [4, 8, 12]" in optimizer.rule_text()
    assert optimizer.param("w").rule.matches

    assert len(timeline.points) == 4 and timeline.current == 3  # one point per pause
    controller.go_to(timeline.current - 3)  # three points back: before the first opt.step()
    settle(controller)
    assert timeline.current == 0 and timeline.slider.value() == 0
    assert controller.snapshot.pause.position.line == 8
    row = buffers.row("w")
    assert [c.label for c in row.contributions] == ["backward #1", "backward #2"]
    np.testing.assert_array_equal(row.grad, [4.0, 8.0, 12.0])
    assert optimizer.param("w").rule is None and dict(optimizer.param("w").state) == {}

    controller.go_to(2)  # forward again, to just after opt.zero_grad()
    settle(controller)
    assert buffers.row("w").state == "none"
    np.testing.assert_allclose(optimizer.param("w").rule.after, [0.6, 1.2, 1.8], rtol=1e-6)
    rows = {(r.what, r.name): r for r in timeline.compare(0, 3)}
    np.testing.assert_allclose(rows["parameter", "w"].delta,
                               np.array([0.6, 1.2, 1.8]) - 0.1 * (0.9 * np.array([4, 8, 12]) + 3)
                               - [1.0, 2.0, 3.0], rtol=1e-5)
    for panel, name in ((buffers, "session_buffers_travelled"),
                        (timeline, "session_timeline")):
        panel.resize(760, 560)
        assert panel.grab().save(str(SHOTS / f"{name}.png"))


def xor_script() -> str:
    doc = json.loads((ROOT / "resources" / "examples" / "11_xor_mlp_adam.gstep").read_text())
    return doc["script"].replace("range(200)", "range(100000)")


def test_run_1000_iterations_with_the_panels_open_then_stop(qtbot, controller):
    assert controller.load_source(xor_script())
    settle(controller)
    plots = make(qtbot, TrainingPlotsPanel, controller)
    buffers = make(qtbot, GradientBufferPanel, controller)
    optimizer = make(qtbot, OptimizerPanel, controller)
    timeline = make(qtbot, TimelinePanel, controller)
    to_line(controller, 12)  # inside the loop: optimizer.zero_grad()

    plots.count.setValue(1000)
    plots.run_button.click()
    settle(controller)
    assert plots.progress.value() == 1000 and plots.progress.maximum() == 1000
    assert plots.drawn_iterations in (1000, 1001)
    loss = plots.curves["loss", "loss"].yData
    assert loss[-1] < 0.05 < loss[0]
    assert buffers.row("model.0.weight").state == "values"
    assert dict(optimizer.param("model.0.weight").state)["step"] >= 1000
    assert len(timeline.points) >= 2

    plots.count.setValue(50_000)
    plots.run_button.click()
    qtbot.waitUntil(lambda: plots.progress.value() >= 10, timeout=20_000)
    assert plots.stop_button.isEnabled()
    plots.stop_button.click()
    settle(controller)
    assert plots.progress.value() < 50_000
    assert not plots.stop_button.isEnabled()
    plots.resize(760, 620)
    assert plots.grab().save(str(SHOTS / "session_training_run.png"))
