"""Gradient Buffers behind another tab makes no rows (a 100,000-node replay's 50,000 rows were
most of each step); shown again, it draws the point the session shows, with "changed" meaning
since the point shown before it, as if it had drawn every one."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from app.panels import GradientBufferPanel
from tests.app.panels_support import FakeController, behind_a_tab
from tests.app.test_panels_buffers import (
    ACCUMULATION,
    AFTER_FIRST_BACKWARD,
    AFTER_SECOND_BACKWARD,
    AFTER_STEP,
    run_to,
)


@pytest.fixture
def tabs(qtbot):
    """The panel in the window's dock tabs, as the window has it: behind an Inspector tab."""
    controller = FakeController(ACCUMULATION)
    controller.start()
    panel = GradientBufferPanel(controller)
    dock, _window = behind_a_tab(qtbot, panel)
    yield dock, panel, controller
    panel.shutdown()
    hub = getattr(controller, "_gradstep_panels_hub", None)
    if hub is not None:
        hub.own_recorder.detach()


def test_a_hidden_panel_draws_when_shown_with_the_change_since_the_point_before(qtbot, tabs):
    dock, panel, controller = tabs
    assert panel.visibleRegion().isEmpty()  # behind the Inspector tab
    run_to(controller, AFTER_FIRST_BACKWARD)
    run_to(controller, AFTER_SECOND_BACKWARD)
    assert panel.tree.topLevelItemCount() == 0  # nothing made while hidden
    assert panel.status.text() == "2 buffers, 2 changed"  # but it says what there is
    with qtbot.waitSignal(dock.visibilityChanged):
        dock.raise_()
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() > 0)
    item = panel.item("w")
    assert item.text(2) == "[4, 8, 12]"
    # since the point before (after the first backward, never drawn), not since nothing
    assert item.text(4).startswith("Δ [2, 4, 6]")
    np.testing.assert_array_equal(panel.row("w").delta, [2.0, 4.0, 6.0])
    assert panel.status.text() == "2 buffers, 2 changed"


def test_reading_a_hidden_panel_makes_its_rows(qtbot, tabs):
    _, panel, controller = tabs
    run_to(controller, AFTER_SECOND_BACKWARD)
    run_to(controller, AFTER_STEP)  # step() leaves .grad as it was
    row = panel.row("w")
    np.testing.assert_array_equal(row.grad, [4.0, 8.0, 12.0])
    assert not row.changed
