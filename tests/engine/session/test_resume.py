"""A ``.gstep`` file's saved state: the session resumes at its iteration (issue 4)."""

import json

import numpy as np

from engine import files
from engine.cli import main
from engine.files import capture_state
from engine.session import Session

SEED = 5
ITERATIONS = 6

# Random data and momentum: resuming is exact only if values, grads, optimizer state and the
# generator's stream all line up.
TRAINING = """\
import torch
w = torch.randn(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
for i in range(6):
    opt.zero_grad()
    x = torch.randn(3)
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
print("final", w.sum().item())
"""

NO_LOOP = """\
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
"""


def _bits(a) -> bytes:
    a = np.asarray(a)
    return a.dtype.str.encode() + a.tobytes()


def _state_at(source: str, k: int):
    """The state one run has when its outermost loop begins iteration ``k``."""
    s = Session(source, seed=SEED)
    s.step_into()
    s.next_iteration()  # into the loop: iteration 0
    if k:
        s.run_iterations(k)
    assert s.position.iteration == k
    return capture_state(s.pause_state.globals, k)


def _through_a_file(state):
    """The state as a .gstep file gives it back."""
    gf = files.GraphFile(script=TRAINING, settings=files.Settings(seed=SEED), state=state)
    return files.loads(files.dumps(gf)).state


def _final_w(source: str = TRAINING, **kwargs):
    s = Session(source, seed=SEED, **kwargs)
    s.continue_()
    while s.status == "paused":
        s.continue_()
    assert s.status == "finished"
    return np.array(s.namespace["w"]._data)


def _doubled(state):
    state.tensors["w"].value = state.tensors["w"].value * 2
    return state


def test_first_pause_is_the_saved_iteration_with_the_saved_values():
    saved = _through_a_file(_state_at(TRAINING, 3))
    events = []
    s = Session(TRAINING, seed=SEED, resume=saved, on_event=events.append)
    pause = s.continue_()
    assert pause is not None and s.status == "paused"
    assert s.position.iteration == 3
    assert pause.loop_iterations[0][1] == 3
    paused = [e for e in events if e.kind == "paused"]
    assert len(paused) == 1 and paused[0].reason == "resumed at iteration 3"
    assert paused[0].position.iteration == 3
    w = s.visible_names()["w"]
    assert _bits(w._data) == _bits(saved.tensors["w"].value)
    assert _bits(w.grad._data) == _bits(saved.tensors["w"].grad)
    snap = s.snapshot()
    assert _bits(snap.tensors["w"].value) == _bits(saved.tensors["w"].value)
    buf = s.visible_names()["opt"].state[w]["momentum_buffer"]
    assert _bits(buf._data) == _bits(saved.optimizers["opt"].state["w"]["momentum_buffer"])
    assert not [e for e in events if e.kind == "warning"]


def test_continuing_from_the_same_runs_state_ends_like_an_uninterrupted_run():
    saved = _through_a_file(_state_at(TRAINING, 3))
    expected = _final_w()
    s = Session(TRAINING, seed=SEED, resume=saved)
    s.continue_()
    assert s.position.iteration == 3
    s.continue_()
    assert s.status == "finished"
    assert _bits(s.namespace["w"]._data) == _bits(expected)
    assert [it for it, _ in s.losses] == list(range(ITERATIONS))


def test_breakpoints_before_the_saved_iteration_do_not_stop():
    saved = _through_a_file(_state_at(TRAINING, 3))
    s = Session(TRAINING, seed=SEED, resume=saved, breakpoints=[2, 6])
    s.step_into()
    assert s.position.iteration == 3 and s.position.line == 5
    s.continue_()
    assert s.position.line == 6 and s.position.iteration == 3  # breakpoints work from here


def test_a_different_saved_value_is_what_the_session_shows():
    saved = _through_a_file(_doubled(_state_at(TRAINING, 3)))
    events = []
    s = Session(TRAINING, seed=SEED, resume=saved, on_event=events.append)
    s.continue_()
    assert s.position.iteration == 3
    assert _bits(s.visible_names()["w"]._data) == _bits(saved.tensors["w"].value)
    resume_point = s.position.point_index
    s.step_over()
    s.step_over()
    s.continue_()
    assert s.status == "finished"
    final = np.array(s.namespace["w"]._data)
    assert _bits(final) != _bits(_final_w())  # the doubled weights trained on from there

    # Time travel re-executes from the start: the restore happens at the same point again.
    s.go_to(resume_point)
    assert s.status == "paused" and s.position.iteration == 3
    assert _bits(s.visible_names()["w"]._data) == _bits(saved.tensors["w"].value)
    s.go_to(len(s.timeline) - 1)
    assert s.status == "finished"
    assert _bits(s.namespace["w"]._data) == _bits(final)
    s.go_to(resume_point + 1)
    assert s.status == "paused"
    assert _bits(s.visible_names()["w"]._data) == _bits(saved.tensors["w"].value)
    s.continue_()
    assert _bits(s.namespace["w"]._data) == _bits(final)

    # restart resumes at the saved iteration too.
    s.restart()
    assert s.status == "paused" and s.position.iteration == 3
    assert _bits(s.visible_names()["w"]._data) == _bits(saved.tensors["w"].value)
    s.continue_()
    assert _bits(s.namespace["w"]._data) == _bits(final)


def test_resuming_at_iteration_zero():
    saved = _through_a_file(_doubled(_state_at(TRAINING, 0)))
    s = Session(TRAINING, seed=SEED, resume=saved)
    s.continue_()
    assert s.position.iteration == 0 and s.position.line == 5
    assert _bits(s.visible_names()["w"]._data) == _bits(saved.tensors["w"].value)


def test_a_script_without_a_loop_restores_at_the_end_with_a_warning():
    plain = Session(NO_LOOP, seed=SEED)
    plain.continue_()
    saved = _doubled(capture_state(plain.namespace, 2))
    events = []
    s = Session(NO_LOOP, seed=SEED, resume=saved, on_event=events.append)
    s.continue_()
    assert s.status == "finished"
    assert _bits(s.namespace["w"]._data) == _bits(saved.tensors["w"].value)
    warnings = [e.warning for e in events if e.kind == "warning"]
    assert len(warnings) == 1 and "no loop" in warnings[0].message
    assert warnings[0] in s.warnings
    assert _bits(s.snapshot().tensors["w"].value) == _bits(saved.tensors["w"].value)


def test_a_script_that_ends_before_the_iteration_warns_and_restores_at_the_end():
    saved = _doubled(_state_at(TRAINING, 3))
    saved.iteration = 50
    events = []
    s = Session(TRAINING, seed=SEED, resume=saved, on_event=events.append)
    s.continue_()
    assert s.status == "finished"
    assert _bits(s.namespace["w"]._data) == _bits(saved.tensors["w"].value)
    warnings = [e.warning for e in events if e.kind == "warning"]
    assert len(warnings) == 1 and "ended before iteration 50" in warnings[0].message


def test_names_the_script_lacks_are_reported():
    saved = _state_at(TRAINING, 2)
    saved.tensors["ghost"] = saved.tensors["w"]
    events = []
    s = Session(TRAINING, seed=SEED, resume=saved, on_event=events.append)
    s.continue_()
    assert s.position.iteration == 2
    warnings = [e.warning for e in events if e.kind == "warning"]
    assert len(warnings) == 1 and "ghost" in warnings[0].message


def _json_w(rep):
    (w,) = [t for t in rep["tensors"] if t["name"] == "w"]
    return np.array(w["value"], dtype=np.float32)


def test_cli_run_prints_the_resumed_final_state(tmp_path, capsys):
    expected = _final_w()
    for state, same in ((_state_at(TRAINING, 3), True),
                        (_doubled(_state_at(TRAINING, 3)), False)):
        path = tmp_path / "resume.gstep"
        files.save(path, files.GraphFile(script=TRAINING, settings=files.Settings(seed=SEED),
                                         state=state))
        assert main(["run", str(path), "--format", "json"]) == 0
        rep = json.loads(capsys.readouterr().out)
        assert rep["status"] == "finished"
        assert rep["counters"]["step"] == ITERATIONS  # the run to iteration 3 counts too
        final = _json_w(rep)
        resumed = _final_w(resume=files.load(path).state)
        assert _bits(final) == _bits(resumed)
        assert (_bits(final) == _bits(expected)) is same


def test_cli_run_iterations_counts_from_the_saved_iteration(tmp_path, capsys):
    path = tmp_path / "resume.gstep"
    files.save(path, files.GraphFile(script=TRAINING, settings=files.Settings(seed=SEED),
                                     state=_state_at(TRAINING, 3)))
    assert main(["run", str(path), "--iterations", "2", "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["status"] == "paused"
    assert rep["stopped_at"]["iteration"] == 5
