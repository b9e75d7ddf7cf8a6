"""Panels behind another tab draw nothing until seen (the optimizer's tree, the training plots:
in the default layout they sit behind the inspector and the console, and their redraws were most
of a step's cost in the window); seen or read, they show the point the session shows. And a
step's state reaches the views when the step ends, not a frame later."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from app.panels import OptimizerPanel, TrainingPlotsPanel
from tests.app.panels_support import FakeController, behind_a_tab
from tests.app.test_panels_buffers import (
    ACCUMULATION,
    AFTER_SECOND_BACKWARD,
    AFTER_SECOND_STEP,
    AFTER_STEP,
    run_to,
)


@pytest.fixture
def tabbed(qtbot):
    """Build ``panel_class`` into a dock tab behind an "Inspector" tab, as the window has it."""
    made = []

    def make(panel_class):
        controller = FakeController(ACCUMULATION)
        controller.start()
        panel = panel_class(controller)
        dock, window = behind_a_tab(qtbot, panel)
        made.append((panel, controller, window))  # the window lives as long as the test
        return dock, panel, controller

    yield make
    for panel, controller, _window in made:
        panel.shutdown()
        hub = getattr(controller, "_gradstep_panels_hub", None)
        if hub is not None:
            hub.own_recorder.detach()


def test_the_optimizer_panel_behind_a_tab_draws_the_current_step_when_raised(qtbot, tabbed):
    dock, panel, controller = tabbed(OptimizerPanel)
    assert not panel.in_view()
    run_to(controller, AFTER_STEP)
    assert panel.tree.topLevelItemCount() == 0  # nothing built while out of sight
    with qtbot.waitSignal(dock.visibilityChanged):
        dock.raise_()
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() > 0)
    w = controller.session.namespace["w"]
    param = panel._groups[0].params[0]
    assert param.name == "w" and param.at_step
    np.testing.assert_allclose(param.rule.after, w._data)
    assert "w_new = w - lr * buf" in panel.rule_view.toPlainText()


def test_reading_a_hidden_optimizer_panel_draws_the_point_first(qtbot, tabbed):
    _, panel, controller = tabbed(OptimizerPanel)
    run_to(controller, AFTER_SECOND_BACKWARD)
    run_to(controller, AFTER_STEP)
    run_to(controller, AFTER_SECOND_STEP)  # the second step: its rule uses the first's buffer
    assert "buf = momentum * buf_prev + (1 - dampening) * grad" in panel.rule_text()
    assert panel.param("w").rule.matches


def test_the_training_plots_behind_a_tab_draw_the_curves_when_raised(qtbot, tabbed):
    dock, panel, controller = tabbed(TrainingPlotsPanel)
    run_to(controller, AFTER_SECOND_BACKWARD)
    recorded = len(panel.hub.recorder.history.loss)
    assert recorded == 2  # two backward() calls: two points on the loss curve
    assert panel._drawn_iterations == 0  # none drawn while out of sight
    with qtbot.waitSignal(dock.visibilityChanged):
        dock.raise_()
    qtbot.waitUntil(lambda: panel._drawn_iterations == recorded)
    xs, ys = panel._curves[("loss", "loss")].getData()
    np.testing.assert_allclose(ys, panel.hub.recorder.history.loss)


def test_a_steps_state_is_published_when_the_step_ends(qtbot):
    """However long the frame that coalesces a running command's events, a command that comes
    to rest publishes at once: the views do not wait for the timer."""
    from app.controller import SessionController

    controller = SessionController(use_worker=False)
    try:
        controller._flush_timer.setInterval(600_000)  # a frame of ten minutes
        with qtbot.waitSignal(controller.state_changed, timeout=20_000):
            controller.load_source("import torch\nx = torch.ones(2, requires_grad=True)\n"
                                   "y = (x * 3).sum()\ny.backward()\n")
            controller.step_over()
        for line in (1, 2):  # paused before the first statement, then after it
            if line > 1:
                controller.step_over()
            qtbot.waitUntil(lambda line=line: controller.snapshot.position is not None
                            and controller.snapshot.position.line == line, timeout=20_000)
        assert not controller._flush_timer.isActive()
    finally:
        controller.shutdown()
