"""Issue 16, the console (real widgets): it shows one moment, like every other panel. Step Back
over a print takes its line away, stepping forward again prints it once, a timeline point shows
what had been printed there (its warnings and error too), Restart starts empty. The session's
own ``console_at`` is the oracle. Each journey runs with the script in the worker process and
in this one."""

from __future__ import annotations

import pytest

from engine.session.events import Status
from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import position, status, trigger, wait_idle

PRINTS = """\
import torch
x = torch.ones(2, requires_grad=True)
print("first")
y = (x * 2).sum()
print("second", y.item())
y.backward()
print("third", x.grad)
"""

FAILS = """\
import torch
a = torch.ones(2, 3)
print("before the error", a.shape)
b = a @ a
print("never printed")
"""

WARNS = """\
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.sum().backward()
g = y.grad
print("after", g, end="")
print(" and more")
h = y.grad
z = 1
"""
WARNING_LINES = (5, 8)  # reading .grad of the non-leaf y


@pytest.fixture(params=["worker", "in-process"])
def window(request, monkeypatch, qtbot, make_window):
    monkeypatch.setenv("GRADSTEP_WORKER", "1" if request.param == "worker" else "0")
    window = make_window()
    assert window.controller.use_worker == (request.param == "worker")
    qtbot.waitUntil(lambda: window.controller.session is not None)
    wait_idle(qtbot, window)
    yield window
    if request.param == "worker":
        from engine.session.worker import shutdown_spares

        window.controller.shutdown()
        shutdown_spares()


def load(qtbot, window, source: str, breakpoints=()) -> None:
    paste_over_everything(window.editor, source)
    wait_idle(qtbot, window)
    for line in breakpoints:
        window.editor.toggle_breakpoint(line)


def printed(window) -> list[str]:
    """The script's output the console shows, one row per line (prints that leave their line
    open share a row with the next)."""
    return [e.text.strip("\n") for e in window.console.entries if e.kind == "output"]


def expected(window) -> str:
    """What the session says had been printed at the point shown."""
    c = window.controller
    point = c.current_point()
    assert point is not None
    return "\n".join(c.session.console_at(point))


def shows_its_moment(window) -> None:
    text = "".join(e.text for e in window.console.entries if e.kind == "output")
    assert text.rstrip("\n") == expected(window)


def test_step_back_over_a_print_takes_its_line_away_and_forward_prints_it_once(qtbot, window):
    load(qtbot, window, PRINTS, [6])
    trigger(qtbot, window, "debug.continue")
    assert position(window).line == 6
    shows_its_moment(window)
    assert [t.split()[0] for t in printed(window)] == ["first", "second"]

    trigger(qtbot, window, "debug.step_back")  # before line 5's print
    assert position(window).line == 5
    shows_its_moment(window)
    assert printed(window) == ["first"]

    trigger(qtbot, window, "debug.step_over")  # the print runs again
    assert position(window).line == 6
    shows_its_moment(window)
    assert [t.split()[0] for t in printed(window)] == ["first", "second"]

    trigger(qtbot, window, "debug.step_over")
    assert position(window).line == 7
    shows_its_moment(window)
    trigger(qtbot, window, "debug.step_over")
    assert status(window) == Status.FINISHED
    shows_its_moment(window)
    assert [t.split()[0] for t in printed(window)] == ["first", "second", "third"]
    assert window.console.text().count("Script finished.") == 1


def test_stepping_into_backward_then_back_three_times_forgets_the_later_prints(qtbot, window):
    load(qtbot, window, PRINTS)
    while status(window) != Status.FINISHED:  # F11 all the way, through backward's nodes
        trigger(qtbot, window, "debug.step_into")
    assert len(printed(window)) == 3
    trigger(qtbot, window, "debug.restart")
    for _ in range(20):
        trigger(qtbot, window, "debug.step_into")
        if position(window) is not None and position(window).line == 7:
            break
    assert position(window).line == 7
    for _ in range(3):
        trigger(qtbot, window, "debug.step_back_into")
        shows_its_moment(window)
    assert all(not t.startswith("third") for t in printed(window))
    while status(window) != Status.FINISHED:
        trigger(qtbot, window, "debug.step_into")
    assert [t.split()[0] for t in printed(window)] == ["first", "second", "third"]


def test_restart_starts_an_empty_console(qtbot, window):
    load(qtbot, window, PRINTS)
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED and len(printed(window)) == 3
    window.editor.toggle_breakpoint(4)
    trigger(qtbot, window, "debug.restart")
    assert printed(window) == []
    assert "Script finished." not in window.console.text()
    trigger(qtbot, window, "debug.continue")
    assert position(window).line == 4
    shows_its_moment(window)
    assert printed(window) == ["first"]


def test_a_timeline_point_shows_its_console_and_its_error(qtbot, window):
    load(qtbot, window, FAILS)
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FAILED
    errors = [e for e in window.console.entries if e.kind == "error"]
    assert errors and window.editor.errors
    timeline = window.panels["timeline"]
    qtbot.waitUntil(lambda: len(timeline.points) == len(window.controller.snapshot.timeline))
    end = len(timeline.points) - 1

    for index in (0, end - 1, 2, end):
        timeline.go_to(index)
        wait_idle(qtbot, window)
        assert window.controller.current_point() == index
        shows_its_moment(window)
        failed = index == end
        assert any(e.kind == "error" for e in window.console.entries) == failed
        assert bool(window.editor.errors) == failed
        assert [e.text for e in window.console.entries if e.kind == "error"] == \
            ([e.text for e in errors] if failed else [])


def test_warnings_and_prints_belong_to_the_points_continue_ran_past(qtbot, window):
    load(qtbot, window, WARNS)
    trigger(qtbot, window, "debug.continue")  # to the end: every statement is a point
    assert status(window) == Status.FINISHED
    timeline = window.panels["timeline"]
    qtbot.waitUntil(lambda: len(timeline.points) == len(window.controller.snapshot.timeline))
    points = list(window.controller.snapshot.timeline)
    for index in (6, 2, 7, 5, 8, 4, len(points) - 1, 0):
        timeline.go_to(index)
        wait_idle(qtbot, window)
        point = points[index]
        shows_its_moment(window)
        warned = [e.line for e in window.console.entries if e.kind == "warning"]
        ran = point.line if point.kind == "statement" else len(WARNS.splitlines()) + 1
        assert warned == [line for line in WARNING_LINES if line < ran]
    # and forward from a point continue ran past: each line and warning once
    timeline.go_to(3)
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue")
    assert [e.line for e in window.console.entries if e.kind == "warning"] == list(WARNING_LINES)
    assert printed(window) == ["after None and more"]


def test_the_re_execution_after_a_stop_kill_shows_the_same_moment(monkeypatch, qtbot,
                                                                 make_window):
    monkeypatch.setenv("GRADSTEP_WORKER", "1")
    monkeypatch.setenv("GRADSTEP_WORKER_TEST_HOOKS", "1")
    from engine.session.worker import SPARES, shutdown_spares

    window = make_window()
    try:
        qtbot.waitUntil(lambda: window.controller.session is not None)
        wait_idle(qtbot, window)
        load(qtbot, window, PRINTS, [6])
        trigger(qtbot, window, "debug.continue")
        trigger(qtbot, window, "debug.step_back")  # before line 5's print
        before = [(e.kind, e.text) for e in window.console.entries if e.run]
        assert printed(window) == ["first"]
        c = window.controller
        pid = c.session.worker_pid
        assert SPARES.wait_ready()
        c.call("_test_hang")  # stuck in one C call: Stop kills the worker, a fresh one re-runs
        qtbot.waitUntil(lambda: c.session.busy, timeout=5000)
        c.stop()
        wait_idle(qtbot, window)
        assert c.session.worker_pid != pid and position(window).line == 5
        shows_its_moment(window)
        assert [(e.kind, e.text) for e in window.console.entries if e.run] == before
        trigger(qtbot, window, "debug.step_over")  # the fresh worker prints it, once
        shows_its_moment(window)
        assert [t.split()[0] for t in printed(window)] == ["first", "second"]
    finally:
        window.controller.shutdown()
        shutdown_spares()


def test_past_the_consoles_cap_step_back_keeps_the_latest_rows_of_the_moment(
        qtbot, window, monkeypatch):
    import app.console

    monkeypatch.setattr(app.console, "MAX_ENTRIES", 10)
    load(qtbot, window, "total = 0\nfor i in range(30):\n    total += i\n    print('i', i)\n"
                        "print('total', total)\n")
    trigger(qtbot, window, "debug.continue")
    assert printed(window)[-2:] == ["i 29", "total 435"]
    assert len(window.console.entries) <= 10
    for _ in range(3):
        trigger(qtbot, window, "debug.step_back")
        lines = expected(window).split("\n")
        rows = printed(window)
        assert rows and len(window.console.entries) <= 10
        assert rows == lines[-len(rows):]  # the moment's latest rows, in order
    trigger(qtbot, window, "debug.continue")
    assert printed(window)[-3:] == ["i 28", "i 29", "total 435"]


ADDRESSES = """\
import torch
x = torch.ones(2, requires_grad=True)
y = x * 3
print("grad_fn", y.grad_fn)
z = y.sum()
print("sum", z.grad_fn)
w = 1
"""


def test_a_travel_forward_shows_the_text_the_re_execution_printed(qtbot, window):
    load(qtbot, window, ADDRESSES)
    while status(window) != Status.FINISHED:
        trigger(qtbot, window, "debug.step_over")
    first = printed(window)
    assert [t.split()[0] for t in first] == ["grad_fn", "sum"]
    timeline = window.panels["timeline"]
    end = len(window.controller.snapshot.timeline) - 1
    timeline.go_to(2)  # before the first print: the script re-runs from the start
    wait_idle(qtbot, window)
    assert printed(window) == []
    timeline.go_to(end)  # forward through both prints, silently re-run: new objects
    wait_idle(qtbot, window)
    shows_its_moment(window)
    assert [e.line for e in window.console.entries if e.kind == "output"] == [4, 6]
    assert window.console.text().count("Script finished.") == 1


@pytest.mark.parametrize("prints", [
    ['"a"', '"b", end=""', '"c", end=""', '"d"', '""', '"e\\nf", end=""', '"\\n"'],
    ['"x", end=""', '"\\n\\n"', '"y\\n"', '"", end=""', '"z", end=""'],
])
def test_the_feed_counts_console_lines_as_the_session_keeps_them(prints):
    """``count_lines`` against the session's own list of lines, print by print."""
    from app.console_history import count_lines
    from engine.session import Session
    from engine.session.events import Output

    outputs = []
    source = "".join(f"print({args})\n" for args in prints) + "done = 1\n"
    session = Session(source, on_event=lambda e: outputs.append(e.text)
                      if isinstance(e, Output) else None)
    session.step_over()
    lines, open_, tail = 0, False, ""
    for _ in prints:
        outputs.clear()
        session.step_over()
        for text in outputs:
            lines, open_, tail = count_lines(lines, open_, tail, text)
        assert lines == len(session.console)
        assert tail == (session.console[-1] if session.console else "")


PARTIAL = """\
print("x", end="")
print("y")
for i in range(3):
    print(i, end=" ")
print("!")
done = 1
"""


def document_rows(window) -> list[str]:
    """The script's rows as the console's document shows them (one paragraph each)."""
    return [line for line in window.console.view.toPlainText().split("\n")
            if not line.startswith(("—", "Script finished"))]


def test_prints_that_leave_their_line_open_share_one_row_as_in_a_terminal(qtbot, window):
    load(qtbot, window, PARTIAL, [2, 4])
    trigger(qtbot, window, "debug.continue")  # before print("y"): the line is open
    assert printed(window) == ["x"]
    trigger(qtbot, window, "debug.step_over")
    assert printed(window) == ["xy"]
    trigger(qtbot, window, "debug.step_back")  # the cut falls inside the row
    assert position(window).line == 2
    shows_its_moment(window)
    assert printed(window) == ["x"] and document_rows(window) == ["x  line 1"]
    trigger(qtbot, window, "debug.continue")  # to line 4, i = 0
    trigger(qtbot, window, "debug.continue")  # i = 1
    trigger(qtbot, window, "debug.continue")  # i = 2
    shows_its_moment(window)
    assert printed(window) == ["xy", "0 1 "]
    trigger(qtbot, window, "debug.step_back")  # back past the second print of the row
    shows_its_moment(window)
    assert printed(window) == ["xy", "0 "]
    window.editor.toggle_breakpoint(4)
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED
    shows_its_moment(window)
    assert printed(window) == ["xy", "0 1 2 !"]
    assert document_rows(window) == ["xy  line 1", "0 1 2 !  line 4"]
    timeline = window.panels["timeline"]
    qtbot.waitUntil(lambda: len(timeline.points) == len(window.controller.snapshot.timeline))
    for index in (5, 1, len(timeline.points) - 1, 7):
        timeline.go_to(index)
        wait_idle(qtbot, window)
        shows_its_moment(window)
        assert printed(window) == [row for row in expected(window).split("\n") if row]
