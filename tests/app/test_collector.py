"""While a window's controller lives, Python's collector runs on the GUI thread between commands
only (app/collector.py): never on the session's thread, never while a command runs."""

from __future__ import annotations

import gc
import threading

from tests.app.window_support import trigger, wait_idle

LOOP = ("import torch\nx = torch.ones(3, requires_grad=True)\n"
        "for i in range(300):\n    y = (x * 2).sum()\n")


def test_collections_happen_on_the_gui_thread_and_never_during_a_command(qtbot, make_window,
                                                                         tmp_path):
    window = make_window(open_demo=False)
    assert not gc.isenabled()
    seen = []

    def note(phase, info):
        if phase == "start":
            seen.append((threading.current_thread() is threading.main_thread(),
                         window.controller.busy))

    gc.callbacks.append(note)
    try:
        script = tmp_path / "loop.py"
        script.write_text(LOOP)
        assert window.open_path(str(script))
        trigger(qtbot, window, "debug.continue")
        wait_idle(qtbot, window)
        qtbot.waitUntil(lambda: len(seen) >= 2, timeout=5000)  # the timer collects when idle
    finally:
        gc.callbacks.remove(note)
    assert all(on_gui and not busy for on_gui, busy in seen), seen


def test_the_collector_comes_back_when_the_last_window_goes(qtbot, make_window):
    from tests.app.conftest import close_window

    window = make_window(open_demo=False)
    assert not gc.isenabled()
    close_window(window)
    assert gc.isenabled()
