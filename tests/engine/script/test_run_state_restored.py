"""A script's global switches end with its run, however it ends: grad mode, anomaly mode, the
print options, the default dtype and the default device; the next run sees the defaults."""

from __future__ import annotations

import pytest

import engine
from engine import budget, tensor_format
from engine.autograd.grad_mode import state
from engine.script import Interpreter, ScriptError, run

CHANGES = """\
import torch
torch.set_grad_enabled(False)
torch.set_printoptions(precision=1)
torch.set_default_dtype(torch.float64)
torch.autograd.set_detect_anomaly(True)
torch.set_default_device("cpu")
"""

READ = """\
import torch
grad = torch.is_grad_enabled()
anomaly = torch.autograd.is_anomaly_enabled()
dtype = str(torch.zeros(1).dtype)
default = str(torch.get_default_dtype())
text = str(torch.tensor([1.23456]))
"""


def _defaults(ns):
    assert ns["grad"] is True
    assert ns["anomaly"] is False
    assert ns["dtype"] == "torch.float32" and ns["default"] == "torch.float32"
    assert ns["text"] == "tensor([1.2346])"


@pytest.mark.parametrize("ending", [
    "raise ValueError('boom')",  # a runtime error
    "x = torch.zeros(10**12)",  # a limit
    "y = 1",  # a normal end
])
def test_next_run_sees_the_defaults(ending):
    outer = budget.guard  # None, or a paused run's (another test's window) while it is paused
    try:
        run(CHANGES + ending)
    except ScriptError:
        pass
    assert state.enabled and not state.anomaly
    assert tensor_format.PRECISION == 4
    assert engine.get_default_dtype() is engine.float32
    assert budget.guard is outer  # the limits end with the run too
    _defaults(run(READ))


def test_abandoned_stepping_restores_too():
    outer = budget.guard
    interp = Interpreter(CHANGES + "z = 2\nw = 3\n")
    steps = interp.steps()
    for pause in steps:
        if pause.line == 7:  # every switch changed, paused before z = 2
            assert not state.enabled and engine.get_default_dtype() is engine.float64
            # the run's allocation budget is off while it waits (the process is not held to it)
            assert budget.guard is outer
            break
    steps.close()
    assert state.enabled and engine.get_default_dtype() is engine.float32
    assert budget.guard is outer
    _defaults(run(READ))


def test_the_changes_hold_during_the_run():
    ns = run(CHANGES + READ.replace("import torch\n", ""))
    assert ns["grad"] is False and ns["anomaly"] is True
    assert ns["dtype"] == "torch.float64" and ns["text"] == "tensor([1.2], dtype=torch.float64)"
