"""The window with the script in a worker process (the default; set explicitly here, with the
test-only commands): the event loop keeps turning while the worker is stuck in one C call, Stop
brings it back within a second, and a worker that dies leaves the window, the text and the file
as they were."""

from __future__ import annotations

import pytest

from tests.app.window_support import position, status, trigger, wait_idle


@pytest.fixture
def worker_window(monkeypatch, make_window, qtbot):
    monkeypatch.setenv("GRADSTEP_WORKER", "1")
    monkeypatch.setenv("GRADSTEP_WORKER_TEST_HOOKS", "1")
    from engine.session.worker import shutdown_spares

    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None, timeout=20000)
    wait_idle(qtbot, window)
    yield window
    window.controller.shutdown()
    shutdown_spares()


def _ticks(window):
    from PySide6.QtCore import QTimer

    count = [0]
    timer = QTimer(window)
    timer.setInterval(20)
    timer.timeout.connect(lambda: count.__setitem__(0, count[0] + 1))
    timer.start()
    return timer, count


def test_the_script_runs_in_a_worker_and_steps_like_in_process(worker_window, qtbot):
    w = worker_window
    session = w.controller.session
    assert session.runs_in_worker and session.worker_alive()
    assert status(w) == "paused"  # the demo ran to its first breakpoint, in the worker
    line = position(w).line
    trigger(qtbot, w, "debug.step_over")
    assert status(w) == "paused" and position(w).line != line
    assert w.controller.snapshot.graph.number_of_nodes() > 0
    assert w.editor.current_line == position(w).line


def test_with_the_script_in_the_worker_the_windows_engine_has_no_listener(worker_window, qtbot):
    # The panels read what the worker told; the window's own recorder would only make every
    # engine op the window runs (the builder's dry runs) pay for an event nobody needs.
    from engine.events import hub

    w = worker_window
    w.ensure_panels()
    trigger(qtbot, w, "debug.step_over")
    panels = w.controller._gradstep_panels_hub
    assert panels.recorder is not panels.own_recorder and not panels.own_recorder.attached
    assert not hub.active


def test_the_event_loop_turns_while_the_worker_is_stuck_and_stop_brings_it_back(
        worker_window, qtbot):
    from engine.session.worker import SPARES

    w = worker_window
    c = w.controller
    where, text, pid = position(w), w.editor.toPlainText(), c.session.worker_pid
    assert SPARES.wait_ready()  # the fresh worker a kill needs is started
    timer, ticks = _ticks(w)
    try:
        c.call("_test_hang")  # one C call that holds the worker's GIL and never returns
        qtbot.waitUntil(lambda: c.session.busy, timeout=5000)
        start = ticks[0]
        # 20 ticks of 20 ms: the GUI thread never waits on the stuck worker
        qtbot.waitUntil(lambda: ticks[0] >= start + 20, timeout=3000)
        assert c.busy and c.session.busy  # still stuck
        c.stop()
        qtbot.waitUntil(lambda: not c.busy, timeout=1000)
    finally:
        timer.stop()
    wait_idle(qtbot, w)
    assert c.session.worker_pid != pid
    assert status(w) == "paused" and position(w) == where  # re-executed to the point shown
    assert w.editor.toPlainText() == text
    trigger(qtbot, w, "debug.step_over")
    assert status(w) == "paused"


def test_a_worker_that_segfaults_leaves_the_window_text_and_file(worker_window, qtbot):
    w = worker_window
    c = w.controller
    text, path, line = w.editor.toPlainText(), w.documents.path, position(w).line
    c.call("_test_segv")
    qtbot.waitUntil(lambda: status(w) == "error", timeout=5000)
    wait_idle(qtbot, w)
    assert "signal 11: segmentation fault" in w.console.text()
    assert f"at line {line}" in w.console.text()
    assert w.editor.toPlainText() == text and w.documents.path == path
    assert w.isVisible()
    trigger(qtbot, w, "debug.step_over")  # a fresh worker (the window re-runs an ended script)
    assert status(w) == "paused"
    assert c.session.worker_alive()
