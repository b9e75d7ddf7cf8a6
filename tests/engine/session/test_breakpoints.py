"""Breakpoint conditions: a small safe subset of the script's language, evaluated without grad."""

import pytest

import engine as torch
from engine.script import Interpreter, ScriptError
from engine.session.breakpoints import ConditionError, as_line_breakpoints, compile_condition


def evaluate_condition(text, names):
    """What the session does for a breakpoint's condition: check it, then let the script's
    interpreter evaluate it against the paused frame's names."""
    compile_condition(text)
    return Interpreter("").evaluate_condition(text, names)


def test_condition_reads_names_attributes_and_item():
    names = {"i": 3, "loss": torch.tensor(0.25), "w": torch.ones(2, 2)}
    assert evaluate_condition("i == 3 and loss.item() < 0.5", names)
    assert not evaluate_condition("i > 3 or loss.item() > 1", names)
    assert evaluate_condition("len(w) == 2 and w.shape[0] * 2 == 4", names)


def test_condition_on_a_tensor_records_no_graph():
    w = torch.ones(3, requires_grad=True)
    names = {"w": w}
    assert evaluate_condition("w.sum().item() == 3", names)
    # Evaluated under no_grad: nothing was recorded that a later backward could reach.
    assert w.grad is None and w.grad_fn is None


@pytest.mark.parametrize("text", [
    "w._data", "__import__('os')", "open('x')", "w.add_(1)", "[x for x in y]", "lambda: 1",
    "w.sum(1)",
])
def test_condition_refuses_what_could_change_state_or_escape(text):
    with pytest.raises(ConditionError):
        compile_condition(text)


def test_unknown_name_is_a_script_error_naming_it_not_a_crash():
    with pytest.raises(ScriptError, match="'nope'") as caught:
        evaluate_condition("nope > 1", {})
    assert caught.value.kind == "runtime"


def test_breakpoint_specs_from_ints_pairs_dicts_and_objects():
    class FileBreakpoint:
        line, condition, enabled = 9, "i > 2", False

    bps = as_line_breakpoints([3, (4, "x > 1"), {"line": 5}, FileBreakpoint()])
    assert [(b.line, b.condition, b.enabled) for b in bps] == [
        (3, None, True), (4, "x > 1", True), (5, None, True), (9, "i > 2", False)]
