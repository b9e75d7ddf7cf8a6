"""The Plots panel draws what a script's ``matplotlib.pyplot`` showed (app/panels/plots.py)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")

import pyqtgraph as pg

from app.panels.plots import EMPTY_TEXT, PlotsPanel, best_corner
from engine.plots import model

TUTORIAL = """import torch
import matplotlib.pyplot as plt
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.05)
losses = []
for step in range(60):
    loss = ((w - torch.tensor([1.0, -2.0, 0.5])) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
plt.plot(losses)
plt.show()
"""

FIT = """import torch
import matplotlib.pyplot as plt

torch.manual_seed(0)
x = torch.linspace(-1, 1, 50).unsqueeze(1)
y = 0.5 * x**3 - x + 0.1 * torch.randn(50, 1)
features = torch.cat([x, x**2, x**3], dim=1)
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
losses = []
for epoch in range(200):
    loss = ((features @ w + b - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.plot(losses, label='loss')
ax1.set_title('Training loss')
ax1.set_xlabel('epoch')
ax1.set_ylabel('MSE')
ax1.set_yscale('log')
ax1.legend()
ax2.scatter(x.squeeze(), y.squeeze(), label='data')
ax2.plot(x.squeeze(), (features @ w + b).detach().squeeze(), 'r--', label='fit')
ax2.set_title('Polynomial fit')
ax2.legend()
ax2.grid(True)
plt.show()

plt.figure()
plt.subplot(1, 2, 1)
plt.hist(torch.randn(500), bins=20, color='C2')
plt.title('randn')
plt.subplot(1, 2, 2)
plt.imshow(torch.outer(torch.linspace(0, 1, 16), torch.linspace(1, 0, 16)), cmap='viridis')
plt.colorbar()
plt.title('imshow')
"""


def make(qtbot, controller):
    panel = PlotsPanel(controller)
    qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
    panel.resize(900, 700)
    panel.show()
    return panel


def run_to_end(qtbot, controller, source):
    assert controller.load_source(source)
    assert controller.wait_idle(20_000)
    controller.run_to_end()
    assert controller.wait_idle(60_000)
    qtbot.wait(100)  # the events' batch reaches the GUI thread


def test_plot_losses_show_draws_one_curve_equal_to_the_losses(qtbot, controller):
    panel = make(qtbot, controller)
    assert panel.empty.isVisible() and panel.empty.text() == EMPTY_TEXT
    run_to_end(qtbot, controller, TUTORIAL)
    qtbot.waitUntil(lambda: len(panel.views) == 1, timeout=10_000)
    assert not panel.empty.isVisible()
    (plot,) = panel.plot_items()
    (curve,) = plot.listDataItems()
    # the script's own numbers, from an in-process run (the window's run is in its worker)
    from engine.session import Session

    here = Session(TUTORIAL)
    here.run_to_end()
    losses = here.namespace["losses"]
    assert len(curve.xData) == len(losses) == 60
    np.testing.assert_array_equal(curve.yData, losses)
    np.testing.assert_array_equal(curve.xData, np.arange(60))
    assert curve.opts["pen"].color().name() == "#1f77b4"  # matplotlib's C0


def test_restart_clears_and_redraws(qtbot, controller):
    panel = make(qtbot, controller)
    run_to_end(qtbot, controller, TUTORIAL)
    qtbot.waitUntil(lambda: len(panel.views) == 1, timeout=10_000)
    controller.restart()
    assert controller.wait_idle(20_000)
    qtbot.waitUntil(lambda: not panel.views, timeout=10_000)
    assert panel.empty.isVisible()


def test_fit_tutorial_draws_every_kind_and_a_screenshot(qtbot, controller):
    panel = make(qtbot, controller)
    run_to_end(qtbot, controller, FIT)
    qtbot.waitUntil(lambda: len(panel.views) == 2, timeout=10_000)
    first, second = panel.views
    loss_plot, fit_plot = first.plots
    assert loss_plot.titleLabel.text == "Training loss" and loss_plot.ctrl.logYCheck.isChecked()
    kinds = [type(i).__name__ for i in fit_plot.items]
    assert "ScatterPlotItem" in kinds and "PlotDataItem" in kinds
    (fit_line,) = [i for i in fit_plot.listDataItems() if i.opts["pen"] is not None
                   and not isinstance(i, pg.ScatterPlotItem)]
    assert fit_line.opts["pen"].color().name() == "#ff0000"
    assert fit_line.opts["pen"].style() == pg.QtCore.Qt.PenStyle.DashLine
    hist_plot, image_plot = second.plots
    assert any(isinstance(i, pg.BarGraphItem) for i in hist_plot.items)
    assert any(isinstance(i, pg.ImageItem) for i in image_plot.items), [
        [type(i).__name__ for i in p.items] for p in second.plots]
    # the legend sits where the data is not: the loss falls from the upper left
    assert loss_plot.legend.corner != "upper left"
    out = Path(os.environ.get("GRADSTEP_SHOTS", "/tmp/shots_plots"))
    out.mkdir(parents=True, exist_ok=True)
    qtbot.wait(200)
    assert panel.grab().save(str(out / "plots_panel.png"))


def test_best_corner_avoids_the_data():
    x = np.arange(10.0)
    falling = model.Axes((model.Line(x, 10 - x),))
    rising = model.Axes((model.Line(x, x),))
    assert best_corner(falling) in ("upper right", "lower left")
    assert best_corner(rising) in ("upper left", "lower right")
