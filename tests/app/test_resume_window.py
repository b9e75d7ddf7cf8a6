"""Opening a .gstep file that carries a saved state resumes at its iteration (issue 4)."""

from __future__ import annotations

import numpy as np

from engine import files
from engine.files import capture_state
from engine.session import Session
from engine.session.events import Status
from tests.app.window_support import position, status, trigger

SCRIPT = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
for i in range(5):
    opt.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    opt.step()
"""


def test_a_file_with_a_saved_state_resumes_there(qtbot, make_window, tmp_path):
    s = Session(SCRIPT)
    s.step_into()
    s.next_iteration()
    s.run_iterations(3)
    state = capture_state(s.pause_state.globals, 3)
    state.tensors["w"].value = state.tensors["w"].value * 2
    path = tmp_path / "resume.gstep"
    files.save(path, files.GraphFile(script=SCRIPT, state=state))
    window = make_window(open_demo=False)
    assert window.open_path(str(path))
    assert window.controller.session.resume is not None
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.PAUSED
    assert position(window).iteration == 3
    # the state shown (a snapshot: the names themselves live in the script's worker process)
    w = window.controller.session.snapshot().tensors["w"]
    assert np.array_equal(w.value, state.tensors["w"].value)
