"""TrainingPlotsPanel on the XOR example (resources/examples/11_xor_mlp_adam.gstep), 1,000
iterations of the real engine, and "Run N iterations" through the real session when it exists.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from app.panels import GradientBufferPanel, OptimizerPanel, TrainingPlotsPanel
from tests.app.panels_support import FakeController

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "panels"


def xor_script(iterations: int) -> str:
    doc = json.loads((ROOT / "resources" / "examples" / "11_xor_mlp_adam.gstep").read_text())
    script = doc["script"]
    assert "range(200)" in script
    return script.replace("range(200)", f"range({iterations})").replace(
        "    if step % 50 == 0:\n        print(step, loss.item())\n", "")


@pytest.fixture
def xor_controller():
    c = FakeController(xor_script(1000))
    c.start()
    yield c
    hub = getattr(c, "_gradstep_panels_hub", None)
    if hub is not None:
        hub.own_recorder.detach()


def make(qtbot, cls, controller):
    panel = cls(controller)
    qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
    panel.show()
    return panel


def test_1000_xor_iterations_with_the_panels_open(qtbot, xor_controller):
    plots = make(qtbot, TrainingPlotsPanel, xor_controller)
    buffers = make(qtbot, GradientBufferPanel, xor_controller)
    optimizer = make(qtbot, OptimizerPanel, xor_controller)
    statements = xor_controller.session.statements
    loop = next(i for i, s in enumerate(statements) if s.__class__.__name__ == "For")
    xor_controller.step_over(loop + 1)  # everything up to and including the training loop

    assert plots.drawn_iterations == 1000
    curve = plots.curves["loss", "loss"]
    loss_x, loss_y = curve.xData, curve.yData  # all of it; getData() is what is drawn
    assert len(loss_x) == 1000 and loss_y[-1] < 0.05 < loss_y[0]  # XOR learned
    names = {"model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"}
    assert {k[1] for k in plots.curves if k[0] == "norm"} == names
    assert {k[1] for k in plots.curves if k[0] == "ratio"} == names
    curve = plots.curves["ratio", "model.2.bias"]
    assert len(curve.xData) == 1000 and np.all(curve.yData > 0)
    item = plots.loss_plot.getPlotItem()
    assert item.ctrl.downsampleCheck.isChecked() and item.ctrl.clipToViewCheck.isChecked()
    lines = plots.csv_text().strip().splitlines()
    assert len(lines) == 1001 and lines[0].startswith("iteration,loss,grad_norm[model.0.weight]")

    # Adam's state after 1,000 steps, with its bias corrections and the last update's rule
    param = optimizer.param("model.0.weight")
    assert dict(param.state)["step"] == 1000.0
    assert dict(param.bias_corrections)["1 - β1^t"] == pytest.approx(1.0)
    assert param.rule.matches and param.rule.optimizer == "Adam"
    # the loop zeroes the grads first: each buffer holds one contribution, the last backward's
    assert [c.label for c in buffers.row("model.2.bias").contributions] == ["backward #1000"]

    SHOTS.mkdir(parents=True, exist_ok=True)
    for panel, name in ((plots, "training_xor_1000"), (optimizer, "optimizer_adam_xor"),
                        (buffers, "buffers_xor_module_groups")):
        panel.resize(760, 620)
        assert panel.grab().save(str(SHOTS / f"{name}.png"))


def test_forgetting_zero_grad_shows_the_buffer_growing(qtbot):
    doc = json.loads((ROOT / "resources" / "examples" / "10_forgot_zero_grad.gstep").read_text())
    script = doc["script"].replace("    print(step, loss.item(), model.weight.grad.item())\n", "")
    controller = FakeController(script)
    controller.start()
    try:
        buffers = make(qtbot, GradientBufferPanel, controller)
        plots = make(qtbot, TrainingPlotsPanel, controller)
        loop = next(i for i, s in enumerate(controller.session.statements)
                    if s.__class__.__name__ == "For")
        controller.step_over(loop + 1)
        row = buffers.row("model.weight")
        assert [c.label for c in row.contributions] == [f"backward #{k}" for k in range(1, 6)]
        np.testing.assert_allclose(sum(c.value for c in row.contributions), row.grad, rtol=1e-5)
        assert "sum of 5 backward() calls" in row.note
        norms = plots.curves["norm", "model.weight"].yData
        assert norms[-1] > 2 * norms[0]  # the stale gradients pile up
        SHOTS.mkdir(parents=True, exist_ok=True)
        buffers.resize(760, 560)
        assert buffers.grab().save(str(SHOTS / "buffers_forgot_zero_grad.png"))
    finally:
        controller._gradstep_panels_hub.own_recorder.detach()


def test_10000_iterations_are_downsampled_for_drawing(qtbot):
    import engine as torch
    from engine.session import panels_model as pm

    controller = FakeController("import engine as torch\n")
    plots = make(qtbot, TrainingPlotsPanel, controller)
    try:
        # the loop runs outside the scripted session, whose backward count stays 0: the recorder
        # must not take that for a restart
        controller._gradstep_panels_hub.recorder.backward_count = None
        w = torch.tensor([3.0, -1.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=1e-4)
        for _ in range(10_000):  # the recorder hears the engine directly
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        plots.names = pm.names_by_id({"w": w})
        plots.resize(700, 600)
        qtbot.waitExposed(plots)
        assert plots.redraw(force=True) and plots.drawn_iterations == 10_000
        curve = plots.curves["norm", "w"]
        assert len(curve.xData) == 10_000
        qtbot.waitUntil(lambda: len(curve.getData()[0]) < 10_000)  # downsampled for drawing
        x0, x1 = plots.loss_plot.getPlotItem().viewRange()[0]
        assert x0 <= 0 and 10_000 <= x1 <= 15_500  # the x range grew in steps to fit
    finally:
        controller._gradstep_panels_hub.own_recorder.detach()
