"""Screenshots of the window's main states, for people to open and look at (never compared).

Written to $GRADSTEP_SCREENSHOTS, or tests/app/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt

from engine.session.events import Status
from tests.app.window_support import click_node, position, status, trigger, wait_idle

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"


def shots_dir() -> Path:
    folder = Path(os.environ.get("GRADSTEP_SCREENSHOTS") or Path(__file__).parent / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(window, name: str) -> Path:
    path = shots_dir() / f"{name}.png"
    image = window.grab()
    assert not image.isNull()
    assert image.save(str(path))
    assert path.stat().st_size > 10_000  # a real picture, not an empty frame
    return path


def test_screenshots_of_the_main_states(qtbot, make_window, tmp_path):
    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None)
    wait_idle(qtbot, window)
    click_node(qtbot, window, "t:t2")
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "01_demo_before_backward")

    trigger(qtbot, window, "debug.step_into")
    trigger(qtbot, window, "debug.step_into")
    assert position(window).backward_step[0] == 2
    shoot(window, "02_backward_step_2")

    while position(window) is not None and position(window).backward_step:
        trigger(qtbot, window, "debug.step_into")
    click_node(qtbot, window, "t:t1")
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "03_backward_done_t1_grad")

    mul = next(n for n, a in window.graph_view.graph.nodes(data=True)
               if a.get("label") == "MulBackward0")
    click_node(qtbot, window, mul)
    shoot(window, "04_mul_node_vjp")

    broken = tmp_path / "broken.gstep"
    broken.write_text("{ not json")
    window.open_path(str(broken))
    shoot(window, "05_broken_file_kept_session")

    assert window.open_example(str(EXAMPLES / "06_second_backward_error.gstep"))
    for _ in range(4):
        trigger(qtbot, window, "debug.continue")
        if status(window) == Status.FAILED:
            break
    assert status(window) == Status.FAILED
    assert window.editor.errors
    shoot(window, "06_error_explained")

    assert window.open_example(str(EXAMPLES / "11_xor_mlp_adam.gstep"))
    trigger(qtbot, window, "debug.continue", timeout=60000)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    weights = [n for n, a in window.graph_view.graph.nodes(data=True)
               if a.get("kind") == "tensor" and "weight" in (a.get("name") or "")]
    click_node(qtbot, window, weights[0])
    window.inspector.matrix_choice.setCurrentText("grad")
    window.inspector.matrix.setCurrentIndex(1)  # the heatmap
    qtbot.waitUntil(lambda: window.inspector.matrix.plot is not None
                    and window.inspector.matrix.plot.isVisible()
                    and window.inspector.matrix.plot.width() > 50)
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "07_mlp_fit_heatmap")

    window.actions_by_id["view.dark_theme"].setChecked(True)
    shoot(window, "08_dark_theme")
    window.actions_by_id["view.dark_theme"].setChecked(False)
    window.graph_view.canvas.setFocus(Qt.FocusReason.OtherFocusReason)


def test_screenshots_of_issue_16_states(qtbot, make_window):
    """What the window shows belongs to the script: a pasted script, a NaN pause that names its
    op, a training loop at iteration 3, a step back, an error mark over a breakpoint."""
    from tests.app.test_document_state import paste_over_everything
    from tests.app.test_step_back import STEP_LINE, TRAINING

    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None and bool(window.panels))
    wait_idle(qtbot, window)
    paste_over_everything(window.editor, TRAINING)
    wait_idle(qtbot, window)
    shoot(window, "16_01_pasted_script_fresh_document")

    window.editor.toggle_breakpoint(STEP_LINE)
    for _ in range(3):
        trigger(qtbot, window, "debug.continue")
    window.docks["optimizer"].raise_()
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "16_02_iteration_3_breakpoint_reason")

    trigger(qtbot, window, "debug.step_back")
    window.docks["timeline"].raise_()
    shoot(window, "16_03_step_back")

    assert window.open_example(str(EXAMPLES / "14_nan_from_log0.gstep"))
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue")
    window.actions_by_id["view.fit"].trigger()
    shoot(window, "16_04_nan_names_the_op")

    paste_over_everything(window.editor, "import torch\nx = torch.ones(2)\ny = x.foo()\n")
    window.editor.toggle_breakpoint(3)
    trigger(qtbot, window, "debug.continue")  # the breakpoint, then the error on its line
    trigger(qtbot, window, "debug.continue")
    assert window.editor.errors and 3 in window.editor.breakpoints
    shoot(window, "16_05_error_mark_over_breakpoint")
    gutter = window.editor._gutter.grab()
    gutter.save(str(shots_dir() / "16_06_gutter.png"))
