"""The moment after F5 on a fresh script, before its worker has said it runs: Stop and Pause
already work and the status bar says it is starting (QA: "Ready" with Stop greyed out for up to
2.4 s looked like a dead F5, and a second F5 ran past a breakpoint)."""

from __future__ import annotations

from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import wait_idle

FOREVER = """\
import torch
x = torch.zeros(3)
while True:
    x = x + 1
"""


def test_stop_and_pause_work_from_the_moment_a_run_is_asked_for(qtbot, make_window):
    window = make_window(open_demo=False)
    paste_over_everything(window.editor, FOREVER)
    wait_idle(qtbot, window)
    assert window.controller.snapshot.status == "idle"
    a = window.actions_by_id
    assert not a["debug.stop"].isEnabled()
    a["debug.continue"].trigger()  # no event loop turn yet: the worker cannot have answered
    assert window.controller.busy
    assert a["debug.stop"].isEnabled() and a["debug.pause"].isEnabled()
    assert window.status.state.text() == "Starting…"
    a["debug.stop"].trigger()
    wait_idle(qtbot, window)
    assert window.status.state.text() != "Starting…"
    assert window.editor.toPlainText() == FOREVER


def test_a_panel_shown_again_from_the_view_menu_comes_to_the_front(qtbot, make_window):
    """QA: closed, then reopened with View ▸ Panels, the Optimizer came back behind the
    Inspector's tab and the user saw nothing change."""
    window = make_window(open_demo=False)
    window.ensure_panels()
    dock = window.docks["optimizer"]
    toggle = next(a for a in window.findChildren(type(window.actions_by_id["debug.stop"]))
                  if a.objectName() == "view.panel.optimizer")
    if not toggle.isChecked():
        toggle.trigger()
    window.docks["inspector"].raise_()  # the optimizer's tab behind the inspector's
    qtbot.waitUntil(lambda: dock.isVisible() and not window.panels["optimizer"].in_view())
    toggle.trigger()  # closed
    qtbot.waitUntil(lambda: not dock.isVisible())
    toggle.trigger()  # and shown again
    qtbot.waitUntil(lambda: window.panels["optimizer"].in_view())
