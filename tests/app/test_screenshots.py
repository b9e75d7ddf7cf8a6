"""Screenshots of the window's main states, for people to open and look at (never compared).

Written to $GRADSTEP_SCREENSHOTS, or tests/app/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from tests.app.window_support import click_node, position, status, trigger, wait_idle
from engine.session.events import Status


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
