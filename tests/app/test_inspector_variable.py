"""Scenario 4, pasted ``Variable`` code: the inspector says what ``Variable(...)`` is since
PyTorch 0.4, for the tensors the script made with it and for no other."""

from __future__ import annotations

import pytest

from app.inspector import variable_bindings
from tests.app.test_document_state import paste_over_everything
from tests.app.window_support import wait_idle

PASTED = """\
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2) * 2, requires_grad=True)
z = 2 * (x * x) + 5 * x
z.backward(torch.ones(2, 2))
print(x.grad)
"""


def test_the_names_bound_by_a_variable_call_and_their_lines():
    source = """\
import torch
from torch import autograd
a, b = Variable(torch.ones(1)), torch.ones(1)
params = [autograd.Variable(torch.zeros(2)), torch.ones(2)]
c = Variable(torch.ones(1)).sum()
d: torch.Tensor = Variable(torch.ones(1), requires_grad=True)
"""
    assert variable_bindings(source) == {"a": 3, "params[0]": 4, "d": 6}
    assert variable_bindings("x = (") == {}


@pytest.fixture
def pasted(qtbot, make_window):
    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None, timeout=20000)
    wait_idle(qtbot, window)

    def run(source):
        paste_over_everything(window.editor, source)
        wait_idle(qtbot, window)
        window.actions_by_id["debug.run_to_end"].trigger()
        wait_idle(qtbot, window)
        return window

    return run


def test_the_inspector_says_variable_returns_a_plain_tensor(pasted):
    window = pasted(PASTED)
    window.show_in_inspector("t:x")
    note = window.inspector.facts["Variable"]
    assert "line 4" in note and "deprecated since PyTorch 0.4" in note
    assert "returns a plain Tensor" in note and "x is a torch.Tensor" in note
    assert "requires_grad=" in note and "x.data is tensor.data" in note
    assert window.inspector.facts["grad"].startswith("[[13., 13.]")
    window.show_in_inspector("t:z")
    assert "Variable" not in window.inspector.facts  # z came from ops, not from Variable


def test_no_variable_note_for_a_tensor_made_without_it(pasted):
    window = pasted(PASTED.replace("Variable(torch.ones(2, 2) * 2, requires_grad=True)",
                                   "torch.full((2, 2), 2.0, requires_grad=True)"))
    window.show_in_inspector("t:x")
    assert window.inspector.facts["requires_grad"] == "True"
    assert "Variable" not in window.inspector.facts
