"""The script's worker process: the wire format, RemoteSession's round trips, stop and kill,
a worker that dies, the OS limits and re-execution after a kill."""

import ast
import pickle
import threading
import time

import numpy as np
import pytest

from engine.script import Limits
from engine.session import Session
from engine.session import events as ev
from engine.session.breakpoints import ConditionError
from engine.session.events import Status
from engine.session.wire import foreign_objects, from_wire, to_wire
from engine.session.worker import SPARES, RemoteSession, death_message, shutdown_spares

from .scripts import NON_SCALAR, NONLEAF_GRAD, RANDOM_TRAINING, SEED_DEMO, SGD_LOOP

PRINTS = """\
x = 1
print("hello", x)
y = x + 1
"""

FOREVER = """\
x = 1
while True:
    pass
"""


@pytest.fixture(scope="module", autouse=True)
def _no_spare_left():
    yield
    shutdown_spares()


@pytest.fixture
def remote():
    made = []

    def make(source, **kwargs):
        kwargs.setdefault("test_hooks", True)
        session = RemoteSession(source, **kwargs)
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()
        assert not session.worker_alive()


def _events_of(session, run):
    got = []
    unsubscribe = session.subscribe(got.append)
    run()
    unsubscribe()
    return got


def _same_snapshot(a, b):
    assert a.tensors.keys() == b.tensors.keys()
    for name, rec in a.tensors.items():
        other = b.tensors[name]
        np.testing.assert_array_equal(rec.value, other.value)
        if rec.grad is None:
            assert other.grad is None
        else:
            np.testing.assert_array_equal(rec.grad, other.grad)
        assert (rec.requires_grad, rec.is_leaf, rec.grad_fn) == (
            other.requires_grad, other.is_leaf, other.grad_fn)
    assert a.scalars == b.scalars
    assert a.optimizer.keys() == b.optimizer.keys()
    assert a.console_lines == b.console_lines


# -- the wire format -------------------------------------------------------------------------------
def _all_kinds_of_events():
    out = []
    s = Session(SEED_DEMO)
    s.subscribe(lambda e: out.append((SEED_DEMO, e)))
    for _ in range(12):  # into the backward pass, node by node
        s.step_into()
    s.continue_()
    s.restart()
    s.step_over()
    s.stop()
    for source in (NONLEAF_GRAD, NON_SCALAR, PRINTS):
        s = Session(source)
        s.subscribe(lambda e, source=source: out.append((source, e)))
        s.continue_()
    return out


def test_every_event_type_crosses_as_plain_data():
    pairs = _all_kinds_of_events()
    kinds = {type(e) for _, e in pairs}
    assert kinds >= {ev.Paused, ev.Running, ev.Finished, ev.Error, ev.Output, ev.Warning,
                     ev.TimelineChanged, ev.Reset}
    assert any(isinstance(e, ev.Paused) and e.pause.kind == "backward_step" for _, e in pairs)
    assert any(isinstance(e, ev.Finished) and e.stopped for _, e in pairs)
    for source, event in pairs:
        wired = to_wire(event, source)
        assert foreign_objects(wired, type(event).__name__) == []
        back = from_wire(pickle.loads(pickle.dumps(wired)))
        assert type(back) is type(event)
        match event:
            case ev.Paused():
                assert back.position == event.position and back.point == event.point
                assert back.reason == event.reason and back.culprits == event.culprits
                p, q = event.pause, back.pause
                assert (q.kind, q.line, q.col, q.end_line, q.depth) == (
                    p.kind, p.line, p.col, p.end_line, p.depth)
                assert q.stack == tuple(tuple(f) for f in p.stack)
                assert q.loop_iterations == tuple(p.loop_iterations)
                assert isinstance(q.stmt, ast.stmt) and q.stmt.lineno == p.line
                assert ast.dump(q.stmt) == ast.dump(p.stmt)
                if p.step is not None:
                    assert q.step.index == p.step.index
                    assert q.step.node.name() == p.step.node.name()
                assert back.diff.nodes_executed == event.diff.nodes_executed
                _same_snapshot(back.snapshot, event.snapshot)
            case ev.Error():
                assert str(back.error) == str(event.error)
                assert back.error.kind == event.error.kind
                assert type(back.error.__cause__).__name__ == \
                    type(event.error.__cause__).__name__
                assert str(back.error.__cause__) == str(event.error.__cause__)
                assert back.explanation == event.explanation
            case ev.Finished():
                assert back.namespace is None and back.stopped == event.stopped
            case _:
                assert back == event


def test_a_long_backward_crosses_as_two_columns():
    """A 2,000-node backward's diff crosses as its steps' indices and names (each name string
    once in the pickle), and reads back as the same ``StepInfo`` items, sliced and iterated."""
    s = Session("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
                "for i in range(1000):\n    y = y * 1.5 + 1\ny.sum().backward()\n")
    seen = []
    s.subscribe(seen.append)
    s.continue_()
    done = next(e for e in seen if isinstance(e, ev.Finished))
    steps = done.diff.backward_steps
    assert len(steps) == 2002
    wired = to_wire(done, s.source)
    data = pickle.dumps(wired)
    assert len(data) < 10 * len(steps)  # ints and memo references (30 bytes a step as objects)
    back = from_wire(pickle.loads(data)).diff
    assert back.nodes_executed == done.diff.nodes_executed
    assert [(b.index, b.node.name()) for b in back.backward_steps] == [
        (int(a.index), a.node.name()) for a in steps]
    tail = back.backward_steps[-3:]
    assert [b.node.name() for b in tail] == [a.node.name() for a in steps[-3:]]
    assert back.backward_steps[0].index == int(steps[0].index)
    assert back.backward_steps == tuple(back.backward_steps)
    assert hash(back) == hash(from_wire(pickle.loads(data)).diff)  # a diff stays hashable


def test_a_step_that_changes_no_tensor_keeps_the_windows_graph(remote):
    """The worker sends ``GraphUnchanged`` for a graph equal to the last one sent: the window's
    new graph shares the old one's nodes and edges, with nothing marked changed; a step that
    changes a value sends the graph again."""
    s = remote("import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\n"
               "y.backward()\nk = 1\nk = 2\nx.data.mul_(3)\nk = 3\n")
    s.run_to_line(5)
    first = s.graph()
    s.step_over()  # k = 1: no tensor changes
    same = s.graph()
    assert same is not first and same._node is first._node and same._adj is first._adj
    assert same.graph["changed"] == [] and same.graph["added"] == []
    assert same.nodes["t:x"]["value"].tolist() == [1.0, 1.0, 1.0]
    s.step_over()  # k = 2
    s.step_over()  # x.data.mul_(3): x's value changes
    changed = s.graph()
    assert changed._node is not first._node
    assert changed.nodes["t:x"]["value"].tolist() == [3.0, 3.0, 3.0]
    assert "t:x" in changed.graph["changed"]


def test_the_graph_model_is_plain_data():
    s = Session(SGD_LOOP)
    s.run_to_line(8)
    graph = s.graph()
    assert graph.number_of_nodes() > 0
    assert foreign_objects(graph, "graph") == []
    back = pickle.loads(pickle.dumps(graph))
    assert list(back.nodes) == list(graph.nodes)


def test_death_messages_name_the_signal_and_the_line():
    assert death_message(-11, 7) == \
        "the script's process ended (signal 11: segmentation fault) at line 7"
    assert "signal 9: killed" in death_message(-9, None)
    assert "exit code 3" in death_message(3, 2)


# -- round trips -----------------------------------------------------------------------------------
def test_commands_give_the_same_pauses_events_and_state_as_in_process(remote):
    here, there = Session(RANDOM_TRAINING), remote(RANDOM_TRAINING)
    plan = ["step_over"] * 3 + ["step_into"] * 2 + ["next_iteration", "step_out",
                                                     ("run_to_line", 9), ("go_to", 2),
                                                     "continue_", "restart", "step_over"]
    for command in plan:
        name, args = (command, ()) if isinstance(command, str) else (command[0], command[1:])
        a = _events_of(here, lambda name=name, args=args: getattr(here, name)(*args))
        b = _events_of(there, lambda name=name, args=args: getattr(there, name)(*args))
        assert [e.kind for e in a] == [e.kind for e in b], command
        assert there.status == here.status and there.position == here.position
        assert list(there.timeline) == list(here.timeline)
        assert there.counters == here.counters and there.losses == here.losses
        assert there.console == here.console
        for x, y in zip(a, b):
            if isinstance(x, ev.Paused):
                assert (y.reason, y.travelled, y.pause.line) == (x.reason, x.travelled,
                                                                 x.pause.line)
                _same_snapshot(x.snapshot, y.snapshot)
        assert list(there.graph().nodes) == list(here.graph().nodes)
    for i in range(len(here.timeline)):
        a, b = here.snapshot(i), there.snapshot(i)
        assert (a is None) == (b is None)
        if a is not None:
            _same_snapshot(a, b)


def test_breakpoints_data_breakpoints_and_progress_cross(remote):
    s = remote(SGD_LOOP)
    with pytest.raises(ConditionError):
        s.set_breakpoint(6, "import os")
    s.set_breakpoint(7, "i == 1")
    s.continue_()
    assert s.position.line == 7 and s.counters.iteration == 1
    assert s.breakpoints[7].hits == 1
    s.clear_breakpoint(7)
    s.break_on_step()
    s.continue_()
    assert s.position.line == 8
    seen = []
    s.break_on_step(False)
    s.restart()
    s.run_iterations(2, progress=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 2), (2, 2)]
    here = Session(SGD_LOOP)
    here.restart()
    here.run_iterations(2)
    assert s.status == Status.PAUSED and s.position == here.position
    assert s.counters == here.counters


ALTERNATING = """\
total = 0
for i in range(100):
    total = total + i
    total = total - 1
"""


def test_a_breakpoint_set_just_before_a_command_is_in_force_when_it_starts(remote):
    # Breakpoints reach the worker's control thread on their own socket, commands its main
    # thread: a command waits there for the controls sent before it.
    s = remote(ALTERNATING)
    s.set_breakpoint(3)
    s.continue_()
    assert (s.position.line, s.position.iteration) == (3, 0)
    for _ in range(30):
        here = s.position
        other = 4 if here.line == 3 else 3
        s.clear_breakpoint(here.line)
        s.set_breakpoint(other)
        s.continue_()
        assert (s.position.line, s.position.iteration) == (
            other, here.iteration + (other == 3))


def test_an_error_crosses_with_its_cause_and_explanation(remote):
    s = remote(NON_SCALAR)
    events = _events_of(s, s.continue_)
    error = [e for e in events if isinstance(e, ev.Error)][0]
    assert s.status == Status.FAILED and s.error.line == 4
    assert type(error.error.__cause__).__name__ == "RuntimeError"
    assert "grad can be implicitly created only for scalar outputs" in str(error.error.__cause__)
    assert error.explanation is not None and s.explanation == error.explanation


# -- stop, kill and respawn -----------------------------------------------------------------------
def _start(session, name, *args):
    done = threading.Event()
    failures = []

    def run():
        try:
            getattr(session, name)(*args)
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done, failures


def _wait_until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_stop_ends_an_endless_loop_politely_within_a_second(remote):
    s = remote(FOREVER, limits=Limits(max_statements=10**12))
    s.step_over()
    running = []
    s.subscribe(lambda e: running.append(e) if isinstance(e, ev.Running) else None)
    pid = s.worker_pid
    thread, done, failures = _start(s, "continue_")
    _wait_until(lambda: running)
    time.sleep(0.05)
    asked = time.monotonic()
    s.stop()
    assert done.wait(1.0), "stop took longer than a second"
    assert time.monotonic() - asked < 1.0
    assert not failures
    assert s.status == Status.STOPPED
    assert s.worker_pid == pid  # polite: the same worker
    s.restart()
    assert s.status == Status.PAUSED and s.position.line == 1


GROWING_CHAIN = """\
import torch
y = torch.ones(3, requires_grad=True)
i = 0
while True:
    y = y * 1.0001
    i += 1
    if i % 500 == 0:
        print(i)
"""


def test_a_run_that_stopped_politely_is_not_killed_while_its_reply_is_built(remote):
    """Stop ended the run at a statement, and its Finished crossed ahead of the reply; the
    worker then builds the graph of the long chain for longer than the grace. That is no
    script code: the worker is not killed, the run ends where it stopped and keeps its prints
    (QA: a kill there rewound the run to the last pause and emptied the console)."""
    s = remote(GROWING_CHAIN, grace=0.05, limits=Limits(max_statements=10**12))
    s.step_over()
    pid = s.worker_pid
    printed = []
    s.subscribe(lambda e: printed.append(e) if isinstance(e, ev.Output) else None)
    thread, done, failures = _start(s, "continue_")
    _wait_until(lambda: len(printed) >= 4, timeout=60.0)  # a chain of 2,000 ops or more
    s.stop()
    assert done.wait(30.0) and not failures
    assert s.worker_pid == pid  # the same worker: nothing was killed
    assert s.status == Status.STOPPED
    assert s.console and int(s.console[-1]) >= 2000  # the prints are all there


def test_stop_kills_a_worker_stuck_in_one_c_call_and_comes_back_where_the_user_was(remote):
    s = remote(RANDOM_TRAINING)
    for _ in range(5):
        s.step_over()
    before = s.snapshot()
    where, points, pid = s.position, list(s.timeline), s.worker_pid
    events = []
    s.subscribe(events.append)
    assert SPARES.wait_ready()  # a fresh worker takes a process start (~0.7 s) once
    thread, done, failures = _start(s, "_test_hang")
    _wait_until(lambda: s.busy)
    time.sleep(0.05)
    asked = time.monotonic()
    s.stop()
    assert done.wait(1.0), "stop took longer than a second"
    elapsed = time.monotonic() - asked
    print(f"stop of a stuck worker: {elapsed * 1000:.0f} ms")
    assert elapsed < 1.0 and not failures
    assert s.worker_pid != pid and s.worker_alive()
    # re-executed to the point the user saw: the same state, announced as a travelled pause
    assert s.status == Status.PAUSED and s.position == where
    assert list(s.timeline) == points
    paused = [e for e in events if isinstance(e, ev.Paused)]
    assert paused and paused[-1].travelled and paused[-1].reason == "stopped"
    _same_snapshot(before, s.snapshot())
    _same_snapshot(before, paused[-1].snapshot)
    # and it goes on exactly as an uninterrupted run
    here = Session(RANDOM_TRAINING)
    for _ in range(5):
        here.step_over()
    here.continue_()
    s.continue_()
    assert s.status == here.status == Status.FINISHED
    assert s.console == here.console and s.losses == here.losses
    _same_snapshot(here.snapshot(), s.snapshot())


def test_a_pause_chosen_by_the_clock_is_replayed_exactly_after_a_kill(remote):
    s = remote(FOREVER.replace("pass", "x = x + 1"), limits=Limits(max_statements=10**12))
    s.step_over()
    thread, done, _ = _start(s, "continue_")
    _wait_until(lambda: s.busy)
    time.sleep(0.2)
    s.pause()
    assert done.wait(5)
    assert s.status == Status.PAUSED
    before, where = s.snapshot(), s.position
    assert before.scalars["x"] > 1
    thread, done, _ = _start(s, "_test_hang")
    _wait_until(lambda: s.busy)
    s.stop()
    assert done.wait(2)
    assert s.position == where
    assert s.snapshot().scalars["x"] == before.scalars["x"]


def test_a_worker_that_segfaults_gives_a_clear_error_and_the_next_command_works(remote):
    s = remote(SEED_DEMO)
    s.step_over()
    s.step_over()
    line, pid = s.position.line, s.worker_pid
    events = _events_of(s, s._test_segv)
    errors = [e for e in events if isinstance(e, ev.Error)]
    assert len(errors) == 1
    message = errors[0].error.message
    assert "signal 11: segmentation fault" in message and f"at line {line}" in message
    assert s.status == Status.FAILED and s.error.line == line
    assert s.source == SEED_DEMO  # the text is the window's: nothing of it was in the worker
    s.step_over()
    assert s.worker_pid != pid and s.worker_alive()
    assert s.status == Status.PAUSED and s.position.line == line + 1


def test_a_worker_killed_from_outside_while_at_rest_reports_it(remote):
    import os
    import signal

    s = remote(SEED_DEMO)
    s.step_over()
    errors = []
    s.subscribe(lambda e: errors.append(e) if isinstance(e, ev.Error) else None)
    os.kill(s.worker_pid, signal.SIGKILL)
    _wait_until(lambda: errors)
    assert "signal 9: killed" in errors[0].error.message
    s.step_over()
    assert s.status == Status.PAUSED and s.position.line == 2


def test_memory_past_the_budget_ends_the_run_with_a_clear_message(remote):
    budget = 64 * 2**20
    s = remote(SEED_DEMO, limits=Limits(max_total_bytes=budget), headroom=512 * 2**20)
    s.step_over()
    events = _events_of(s, lambda: s._test_alloc(4 * 2**30))  # past RLIMIT_AS
    errors = [e for e in events if isinstance(e, ev.Error)]
    assert errors and "ran out of memory" in errors[0].error.message
    assert s.status == Status.FAILED
    block = bytearray(512 * 2**20)  # the window's process is not limited
    del block
    s.restart()
    assert s.status == Status.PAUSED

    script = "import torch\nxs = []\nfor i in range(64):\n    xs.append(torch.ones(1024, 1024))\n"
    t = remote(script, limits=Limits(max_total_bytes=budget), headroom=512 * 2**20)
    t.continue_()
    assert t.status == Status.FAILED and t.error.line == 4
    assert t.error.kind in ("limit", "runtime")
    assert t.worker_alive()


def test_closing_ends_the_worker(remote):
    s = remote(SEED_DEMO)
    s.step_over()
    pid = s.worker_pid
    s.close()
    assert not s.worker_alive()
    assert s.step_over() is None  # a closed session runs nothing
    assert pid


def test_the_spare_starts_a_moment_after_the_first_rest_while_the_window_draws():
    """At the first rest the replacement is due ``AFTER_REST_SECONDS`` later (not at once,
    while the window draws the reply, nor at the take's far timeout); a second rest of the
    same worker does not put it off again."""
    from engine.session.worker import _Spares

    spares = _Spares()
    spares.REFILL_SECONDS = 600.0
    spares.AFTER_REST_SECONDS = 0.2
    proc = spares.take(False)
    try:
        spares.refill_after_rest(False)
        assert not spares._spares  # not at once
        due = spares._wanted[False]
        spares.refill_after_rest(False)  # the worker rests again: the same moment stands
        assert spares._wanted[False] is due
        due.join(10.0)  # the timer's moment came (the timer thread ran refill)
        assert set(spares._spares) == {False} and spares.wait_ready()
        assert not spares._wanted
    finally:
        proc.close()
        spares.shutdown()


def test_a_taken_spare_is_replaced_once_the_worker_is_at_rest_not_while_it_starts_the_run():
    """The replacement's start-up (about a second of CPU) must not compete with the script
    just handed over: it waits for ``refill`` (the first command's reply) or the timeout."""
    from engine.session.worker import _Spares

    spares = _Spares()
    spares.REFILL_SECONDS = 600.0  # only refill() starts it here
    proc = spares.take(False)  # no spare yet: a cold start
    try:
        assert not spares._spares  # the replacement waits
        spares.refill(False)
        assert set(spares._spares) == {False} and spares.wait_ready()
        again = spares.take(False)  # the ready one
        assert again is not proc and again.ready
        again.close()
    finally:
        proc.close()
        spares.shutdown()
