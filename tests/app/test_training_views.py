"""The Training panel as a new user reads it: a frozen layer named under the gradient-norm plot,
two training loops drawn as two runs, and plots that stay readable in a low bottom dock (tabs,
the legend right of the curves, y labels apart)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from app.panels import TrainingPlotsPanel
from tests.app.panels_support import FakeController

SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "panels"

FROZEN = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)
    def forward(self, x):
        h = torch.relu(self.fc1(x)).detach()
        return self.fc2(h)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
X = torch.randn(8, 3)
Y = torch.randn(8, 1)
for epoch in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(net(X), Y)
    loss.backward()
    opt.step()
"""

TWO_LOOPS = """\
import torch
torch.manual_seed(0)
x = torch.linspace(-1, 1, 50).unsqueeze(-1)
y = 2 * x
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-2)
for t in range(30):
    loss = ((model(x) - y) ** 2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
w = torch.nn.Parameter(torch.randn(()))
opt2 = torch.optim.SGD([w], lr=1e-3)
for epoch in range(6):
    l = ((w * x - y) ** 2).sum()
    opt2.zero_grad()
    l.backward()
    opt2.step()
"""


@pytest.fixture
def panel_for(qtbot):
    made = []

    def make(source: str, size=(760, 620)):
        controller = FakeController(source)
        controller.start()
        panel = TrainingPlotsPanel(controller)
        qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
        panel.resize(*size)
        panel.show()
        qtbot.waitExposed(panel)
        controller.step_over(len(controller.session.statements))
        made.append(controller)
        return panel

    yield make
    for controller in made:
        controller._gradstep_panels_hub.own_recorder.detach()


def test_a_frozen_layer_is_named_under_the_gradient_norm_plot(panel_for):
    panel = panel_for(FROZEN)
    assert panel.drawn_iterations == 5
    note = panel.no_grad["norm"]
    assert not note.isHidden() and note.text() == "no grad: net.fc1.weight, net.fc1.bias"
    assert "net.fc1.weight" in panel.no_grad["ratio"].text()
    # no curve for them (nothing to draw), curves for fc2
    assert {k[1] for k in panel.curves if k[0] == "norm"} == {"net.fc2.weight", "net.fc2.bias"}
    header = panel.csv_text().splitlines()[0].split(",")
    assert "grad_norm[net.fc1.weight]" in header and "grad_norm[net.fc1.bias]" in header
    last = panel.csv_text().splitlines()[-1].split(",")
    assert last[header.index("grad_norm[net.fc1.bias]")] == "None"
    assert "‖w_before‖ = 0" in panel.ratio_plot.toolTip()


def test_two_training_loops_are_two_runs(panel_for):
    panel = panel_for(TWO_LOOPS)
    assert panel.drawn_iterations == 36 and panel.run_starts == [30]
    assert panel.status.text().startswith("36 iterations in 2 runs (the last: 6)")
    first, second = panel.curves[("loss", "run 1")], panel.curves[("loss", "run 2")]
    np.testing.assert_array_equal(first.xData, np.arange(1, 31))
    np.testing.assert_array_equal(second.xData, np.arange(31, 37))
    assert first.opts["pen"].color() != second.opts["pen"].color()
    lines = panel._separators["norm"]
    assert len(lines) == 1 and lines[0].value() == pytest.approx(30.5)
    assert panel.csv_text().splitlines()[0].endswith(",run")
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert panel.grab().save(str(SHOTS / "training_two_runs.png"))


def test_a_low_dock_shows_the_plots_as_tabs_with_the_legend_beside(qtbot, panel_for):
    panel = panel_for(FROZEN, size=(990, 175))  # the bottom dock at 1440x900
    qtbot.waitUntil(lambda: panel.layout_mode == "tabs")
    panel.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: panel.norm_plot.isVisible())
    assert panel.norm_plot.height() >= 50
    item = panel.norm_plot.getPlotItem()
    legend = item.legend.sceneBoundingRect()
    assert not legend.intersects(item.getViewBox().sceneBoundingRect())  # never on the curves
    assert legend.bottom() <= panel.norm_plot.height()  # in as many columns as it needs
    # the y labels keep apart: at most a label per 22 pixels of axis
    axis = item.getAxis("left")
    lo, hi = item.getViewBox().viewRange()[1]
    spacing = axis.tickSpacing(lo, hi, axis.height())[0][0]
    assert axis.height() * spacing / (hi - lo) >= 22
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert panel.grab().save(str(SHOTS / "training_low_dock_tabs.png"))
    panel.resize(1500, 300)  # wide and roomy enough: side by side
    qtbot.waitUntil(lambda: panel.layout_mode == "side by side")
    assert all(box.isVisibleTo(panel) for box in panel.boxes)  # the tabs' hidden pages too
    panel.resize(700, 700)
    qtbot.waitUntil(lambda: panel.layout_mode == "stacked")
    assert panel.tabs.count() == 0
    assert all(box.isVisibleTo(panel) for box in panel.boxes)
