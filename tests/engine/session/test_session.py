"""The debugger session, driven like the window drives it, without Qt."""

import threading

import numpy as np
import pytest

from engine.session import Session

from .scripts import (
    FUNCTION_AND_LOOP,
    LONG_LOOP,
    NAN_FROM_LOG,
    NON_SCALAR,
    RANDOM_TRAINING,
    SEED_DEMO,
    SGD_LOOP,
)


class Recorder:
    def __init__(self, session):
        self.events = []
        session.subscribe(self.events.append)

    def kinds(self):
        return [e.kind for e in self.events]

    def last(self, kind):
        return [e for e in self.events if e.kind == kind][-1]


def _lines(session, command, times):
    out = []
    for _ in range(times):
        getattr(session, command)()
        out.append(session.position.line if session.status == "paused" else session.status)
    return out


# -- stepping --------------------------------------------------------------------------------------

def test_step_over_stays_at_module_level_and_runs_calls_whole():
    s = Session(FUNCTION_AND_LOOP)
    assert _lines(s, "step_over", 8) == [1, 4, 5, 6, 6, 6, 7, "finished"]


def test_step_into_enters_the_function_and_step_out_returns_to_the_caller():
    s = Session(FUNCTION_AND_LOOP)
    s.run_to_line(6)
    assert _lines(s, "step_into", 3) == [2, 3, 6]
    assert s.pause_state.depth == 0
    s.step_into()
    assert (s.position.line, s.position.depth) == (2, 1)
    s.step_out()
    assert (s.position.line, s.position.depth, s.position.iteration) == (6, 0, 2)


def test_step_out_at_module_level_runs_to_the_end():
    s = Session(FUNCTION_AND_LOOP)
    s.step_over()
    s.step_out()
    assert s.status == "finished"
    assert s.console == ["3"]


def test_step_into_backward_visits_the_nodes_in_pytorch_order():
    s = Session(SEED_DEMO)
    rec = Recorder(s)
    s.run_to_line(7)
    names, appeared = [], []
    for _ in range(4):
        s.step_into()
        event = rec.last("paused")
        assert event.pause.kind == "backward_step"
        names.append(event.pause.step.node.name())
        appeared.append([c.name for c in event.diff.grad_changes()])
        assert event.position.backward_step == (len(names), 4)
    assert names == ["SumBackward0", "AddBackward0", "MulBackward0",
                     "torch::autograd::AccumulateGrad"]
    assert appeared == [[], ["t2"], [], ["t1"]]
    snap = s.snapshot()
    np.testing.assert_array_equal(snap.tensors["t2"].grad, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(snap.tensors["t1"].grad, [2.0, 4.0, 6.0])
    s.step_into()
    assert (s.pause_state.kind, s.position.line) == ("statement", 8)


def test_step_over_backward_shows_the_executed_nodes_in_one_diff():
    s = Session(SEED_DEMO)
    rec = Recorder(s)
    s.run_to_line(7)
    s.step_over()
    diff = rec.last("paused").diff
    assert diff.nodes_executed == ("SumBackward0", "AddBackward0", "MulBackward0",
                                   "torch::autograd::AccumulateGrad")
    assert {c.name for c in diff.grad_changes()} == {"t1", "t2"}
    assert s.counters.backward == 1


def test_step_out_of_a_backward_pass_finishes_it():
    s = Session(SEED_DEMO)
    s.run_to_line(7)
    s.step_into()
    s.step_out()
    assert (s.pause_state.kind, s.position.line) == ("statement", 8)
    np.testing.assert_array_equal(s.snapshot().tensors["t1"].grad, [2.0, 4.0, 6.0])


def test_events_of_a_command_running_then_paused_then_timeline():
    s = Session(FUNCTION_AND_LOOP)
    rec = Recorder(s)
    s.step_over()
    assert rec.kinds() == ["running", "paused", "timeline_changed"]
    s.continue_()
    assert rec.kinds()[3:] == ["running", "output", "finished", "timeline_changed"]
    assert rec.last("output").text.strip() == "3"
    assert rec.last("output").line == 7


# -- breakpoints -----------------------------------------------------------------------------------

def test_line_breakpoint_stops_on_each_pass():
    s = Session(FUNCTION_AND_LOOP, breakpoints=[6])
    assert _lines(s, "continue_", 4) == [6, 6, 6, "finished"]


def test_run_to_end_passes_line_and_data_breakpoints_then_they_stop_again():
    s = Session(SGD_LOOP, breakpoints=[6])
    s.break_on_step(True)
    s.break_on_nan(True)
    s.run_to_end()
    assert s.status == "finished"
    assert s.counters.step == 3  # every iteration ran
    s.restart()
    s.continue_()  # the same breakpoints still stop an ordinary run
    assert s.status == "paused" and s.position.line == 6


def test_run_to_end_from_a_pause_keeps_the_values_of_a_plain_run():
    plain = Session(SGD_LOOP)
    plain.continue_()
    s = Session(SGD_LOOP, breakpoints=[7])
    s.continue_()
    assert s.position.line == 7
    s.run_to_end()
    assert s.status == "finished"
    np.testing.assert_array_equal(s.namespace["w"].detach().numpy(),
                                  plain.namespace["w"].detach().numpy())


def test_conditional_breakpoint_evaluates_against_the_paused_frame():
    s = Session(FUNCTION_AND_LOOP)
    s.set_breakpoint(6, "i == 2 and total > 1")
    s.continue_()
    assert s.position.line == 6
    assert s.pause_state.globals["i"] == 2
    s.clear_breakpoint(6)
    s.continue_()
    assert s.status == "finished"


def test_breakpoint_inside_a_function_sees_its_locals():
    s = Session(FUNCTION_AND_LOOP)
    s.set_breakpoint(3, "b == 2")
    s.continue_()
    assert (s.position.line, s.pause_state.locals["b"]) == (3, 2)


def test_nan_breakpoint_names_the_tensor_and_the_op_that_made_it():
    s = Session(NAN_FROM_LOG)
    rec = Recorder(s)
    s.break_on_nan(True)
    s.continue_()
    assert s.position.line == 4  # right after the statement that took log(0)
    reason = rec.last("paused").reason
    assert "logp" in reason and "LogBackward0" in reason
    s.break_on_nan(False)
    s.continue_()
    assert s.status == "finished"
    assert s.warnings == []  # numpy's "divide by zero" is the engine's business, not a lint


def test_break_on_step_and_counters():
    s = Session(SGD_LOOP)
    s.break_on_step(True)
    s.continue_()
    assert (s.position.line, s.counters.step, s.counters.backward) == (8, 0, 1)
    s.continue_()
    assert (s.position.line, s.counters.step, s.counters.iteration) == (8, 1, 1)
    s.break_on_step(False)
    s.continue_()
    assert s.status == "finished"
    assert (s.counters.backward, s.counters.zero_grad, s.counters.step) == (3, 3, 3)


def test_break_on_backward_and_zero_grad_stop_before_the_call():
    s = Session(SGD_LOOP)
    s.break_on_backward(True)
    s.break_on_zero_grad(True)
    assert _lines(s, "continue_", 3) == [5, 7, 5]


def test_grad_norm_breakpoint():
    s = Session(SGD_LOOP)
    rec = Recorder(s)
    s.break_on_grad_norm(4.0)  # |grad| = |2w| = 4.47 at first
    s.continue_()
    # right after the node that wrote the gradient, inside loss.backward() on line 7
    event = rec.last("paused")
    assert (s.position.line, s.position.backward_step) == (7, (3, 3))
    assert event.pause.step.node.name() == "torch::autograd::AccumulateGrad"
    assert "w.grad" in event.reason and "4.472" in event.reason


def test_backward_then_step_change_grads_then_values():
    s = Session(SGD_LOOP)
    rec = Recorder(s)
    s.run_to_line(7)
    s.step_over()
    diff = rec.last("paused").diff
    assert [(c.name, c.field) for c in diff.tensors if c.name == "w"] == [("w", "grad")]
    s.step_over()
    diff = rec.last("paused").diff
    assert [(c.name, c.field) for c in diff.tensors if c.name == "w"] == [("w", "value")]
    assert {o.key for o in diff.optimizer} == {"momentum_buffer"}


# -- iterations ------------------------------------------------------------------------------------

def test_next_iteration_goes_to_the_next_pass_of_the_loop():
    s = Session(SGD_LOOP)
    s.run_to_line(7)
    s.next_iteration()
    assert (s.position.line, s.position.iteration) == (5, 1)
    s.next_iteration()
    assert (s.position.line, s.position.iteration) == (5, 2)
    s.next_iteration()  # the loop ends: the script finishes
    assert s.status == "finished"


def test_run_iterations_reports_progress():
    s = Session(SGD_LOOP)
    s.run_to_line(5)
    seen = []
    s.run_iterations(2, progress=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 2), (2, 2)]
    assert (s.position.line, s.position.iteration) == (5, 2)


def test_run_iterations_from_before_the_loop_runs_that_many_whole_iterations():
    """Entering the loop is no iteration run: "Run 2 iterations" from line 1 ends at the start
    of the third, two backward() calls and two steps done (it ran one fewer)."""
    for start in (None, 1, 2):
        s = Session(SGD_LOOP)
        if start is not None:
            s.run_to_line(start)
        seen = []
        s.run_iterations(2, progress=lambda k, n, seen=seen: seen.append((k, n)))
        assert seen == [(1, 2), (2, 2)]
        assert (s.position.line, s.position.iteration) == (5, 2)
        assert (s.counters.backward, s.counters.step) == (2, 2)


def test_run_iterations_is_cancelled_by_stop_from_another_thread():
    s = Session(LONG_LOOP)
    rec = Recorder(s)
    reached, stop_sent = threading.Event(), threading.Event()

    def progress(k, n):
        if k == 3:
            reached.set()
            assert stop_sent.wait(30)

    # All commands on one worker thread, as the window runs them (the interpreter's greenlets
    # belong to the thread that started the run).
    worker = threading.Thread(target=lambda: (s.run_to_line(4), s.run_iterations(1000, progress)))
    worker.start()
    assert reached.wait(60)
    s.stop()
    stop_sent.set()
    worker.join(60)
    assert not worker.is_alive()
    assert s.status == "stopped"
    assert rec.last("finished").stopped
    assert s.counters.iteration == 3


def test_run_iterations_is_paused_from_another_thread_and_can_continue():
    s = Session(LONG_LOOP)
    reached, pause_sent = threading.Event(), threading.Event()

    def progress(k, n):
        if k == 2:
            reached.set()
            assert pause_sent.wait(30)

    def commands():
        s.run_to_line(4)
        s.run_iterations(1000, progress)
        paused_at.append(s.position.iteration)
        s.next_iteration()

    paused_at = []
    worker = threading.Thread(target=commands)
    worker.start()
    assert reached.wait(60)
    s.pause()
    pause_sent.set()
    worker.join(60)
    assert paused_at == [3]  # the next pause after pause() was called: the next statement
    assert (s.status, s.position.iteration) == ("paused", 4)


# -- time travel -----------------------------------------------------------------------------------

def _final_w(source):
    s = Session(source)
    s.continue_()
    return np.array(s.namespace["w"]._data), list(s.console)


def test_go_back_three_points_shows_the_recorded_state_and_continues_exactly():
    s = Session(RANDOM_TRAINING)
    rec = Recorder(s)
    seen = []
    for _ in range(14):
        s.step_over()
        w = s.pause_state.globals.get("w")
        seen.append(None if w is None else np.array(w._data))
    back = len(s.timeline) - 4
    s.go_to(back)
    event = rec.last("paused")
    assert event.travelled and event.diff.full
    assert s.position.point_index == back
    live = s.pause_state.globals["w"]._data
    np.testing.assert_array_equal(live, seen[back])
    np.testing.assert_array_equal(s.snapshot(back).tensors["w"].value, seen[back])
    assert s.counters.backward == sum(1 for p in s.timeline[: back + 1] if "backward" in p.markers)
    recorded = list(s.timeline)
    s.continue_()
    expected_w, expected_console = _final_w(RANDOM_TRAINING)
    np.testing.assert_array_equal(s.namespace["w"]._data, expected_w)
    assert s.console == expected_console
    assert s.timeline[-1].kind == "finished"
    # Re-execution is exact: the points after the jump are kept (the same run reaches them),
    # and continue adds a point at every statement it passed beyond them.
    kept = list(s.timeline)[: len(recorded)]
    assert [(p.raw_index, p.line, p.kind) for p in kept] == \
        [(p.raw_index, p.line, p.kind) for p in recorded]
    assert all(p.kind == "statement" for p in s.timeline[len(recorded):-1])
    raws = [p.raw_index for p in s.timeline]
    assert raws == sorted(raws)


def test_go_forward_to_a_later_point_after_going_back():
    s = Session(RANDOM_TRAINING)
    for _ in range(10):
        s.step_over()
    w9 = np.array(s.pause_state.globals["w"]._data)
    s.go_to(2)
    s.go_to(9)
    np.testing.assert_array_equal(s.pause_state.globals["w"]._data, w9)


def test_points_carry_markers_iterations_and_lines():
    s = Session(SGD_LOOP)
    for _ in range(9):
        s.step_over()
    points = list(s.timeline)
    assert [p.line for p in points] == [1, 2, 3, 4, 5, 6, 7, 8, 5]
    by_line = {p.line: p for p in points[:-1]}
    assert "zero_grad" in by_line[6].markers  # the point after zero_grad() ran
    assert "backward" in by_line[8].markers
    assert "step" in points[-1].markers
    assert points[-1].iteration == 1


def test_restart_resets_the_timeline_and_counters():
    s = Session(SGD_LOOP)
    rec = Recorder(s)
    s.continue_()
    s.restart()
    assert "reset" in rec.kinds()
    assert (s.position.line, len(s.timeline), s.counters.backward) == (1, 1, 0)


# -- errors ----------------------------------------------------------------------------------------

def test_error_event_carries_the_explanation():
    s = Session(NON_SCALAR)
    rec = Recorder(s)
    s.continue_()
    event = rec.last("error")
    assert s.status == "error"
    assert event.error.line == 4 and event.error.kind == "runtime"
    assert event.explanation.text.startswith("y has 3 elements")
    assert "error" in s.timeline[-1].markers


def test_stop_while_paused_ends_the_run():
    s = Session(SGD_LOOP)
    rec = Recorder(s)
    s.step_over()
    s.stop()
    assert s.status == "stopped"
    assert rec.last("finished").stopped
    s.restart()
    assert s.status == "paused"


def test_reexecution_is_exact_for_random_scripts():
    first, _ = _final_w(RANDOM_TRAINING)
    second, _ = _final_w(RANDOM_TRAINING)
    np.testing.assert_array_equal(first, second)


def test_graph_of_the_current_state_names_the_tensors():
    graph_mod = pytest.importorskip("engine.graph")
    if not hasattr(graph_mod, "build_graph"):
        pytest.skip("engine.graph.build_graph is not there yet")
    s = Session(SEED_DEMO)
    s.run_to_line(7)
    g = s.graph()
    names = {d.get("name") for _, d in g.nodes(data=True) if d["kind"] == "tensor"}
    assert {"t1", "t2", "z"} <= names


def test_points_whose_snapshots_were_evicted_are_reached_by_reexecution():
    s = Session(RANDOM_TRAINING, timeline_budget=4_000)
    s.timeline.keyframe_every = 4
    seen = []
    for _ in range(20):
        s.step_over()
        w = s.pause_state.globals.get("w")
        seen.append(None if w is None else np.array(w._data))
    assert s.timeline.evicted_segments > 0 and s.snapshot(5) is None
    s.go_to(5)
    np.testing.assert_array_equal(s.pause_state.globals["w"]._data, seen[5])
    np.testing.assert_array_equal(s.snapshot().tensors["w"].value, seen[5])


def test_interleaved_sessions_do_not_disturb_each_others_random_numbers():
    expected, _ = _final_w(RANDOM_TRAINING)
    a, b = Session(RANDOM_TRAINING), Session(RANDOM_TRAINING, seed=5)
    while a.status == "paused" or a.status == "idle":
        a.step_over()
        b.step_over()
    np.testing.assert_array_equal(a.namespace["w"]._data, expected)


def test_go_to_after_the_end_and_continue_gives_the_same_end():
    s = Session(RANDOM_TRAINING)
    for _ in range(6):
        s.step_over()
    s.continue_()
    final = np.array(s.namespace["w"]._data)
    s.go_to(3)
    assert s.status == "paused" and s.position.point_index == 3
    s.continue_()
    np.testing.assert_array_equal(s.namespace["w"]._data, final)


def test_a_bad_condition_from_a_file_is_reported_when_reached():
    s = Session(FUNCTION_AND_LOOP, breakpoints=[{"line": 6, "condition": "nope > 1"}])
    rec = Recorder(s)
    s.continue_()
    assert s.position.line == 6
    assert "condition" in rec.last("paused").reason and "nope" in rec.last("paused").reason


def test_console_at_an_earlier_point():
    s = Session(FUNCTION_AND_LOOP + "print('again')\n")
    for _ in range(9):
        s.step_over()
    assert s.status == "finished" and s.console == ["3", "again"]
    assert s.console_at(6) == []  # point 6 is the pause before line 7's print
    assert s.console_at(7) == ["3"]


def test_console_joins_prints_without_newline_into_one_line():
    s = Session("print('a', end='')\nprint('b')\nprint()\nprint('c\\nd')\n")
    s.continue_()
    assert s.console == ["ab", "", "c", "d"]


@pytest.mark.parametrize("call, became", [("opt.zero_grad()", "none"),
                                          ("opt.zero_grad(set_to_none=False)", "zeros")])
def test_zero_grad_makes_grads_none_by_default_and_zeros_on_request(call, became):
    source = SGD_LOOP.replace("opt.zero_grad()", call)
    s = Session(source)
    rec = Recorder(s)
    s.break_on_zero_grad(True)
    s.continue_()
    s.continue_()  # the second iteration's zero_grad(): w.grad holds the first gradient
    s.step_over()
    diff = rec.last("paused").diff
    assert [(c.name, c.change) for c in diff.grad_changes()] == [("w", became)]
    assert s.counters.zero_grad == 2


def test_commands_after_the_end_do_nothing_and_announce_nothing():
    s = Session(FUNCTION_AND_LOOP)
    s.continue_()
    rec = Recorder(s)
    assert s.step_over() is None and s.continue_() is None and s.next_iteration() is None
    assert rec.events == [] and s.status == "finished"


def test_module_names_leave_out_a_paused_functions_locals():
    s = Session(FUNCTION_AND_LOOP, breakpoints=[2])
    s.continue_()
    assert s.position.line == 2
    assert "a" in s.visible_names()  # the paused frame's local
    assert "a" not in s.module_names() and "total" in s.module_names()
    s.continue_()
    s.run_to_end()
    assert s.module_names()["total"] == 3
