"""Explanations of PyTorch's classic errors: raised by the real engine, explained with names."""

import ast

import pytest

import engine as torch
from engine.script.errors import ScriptError
from engine.session.explain import explain


def _failing(statement: str, namespace: dict):
    """Run ``statement`` against ``namespace`` like a script statement; the ScriptError it gives."""
    stmt = ast.parse(statement).body[0]
    try:
        exec(compile(statement, "<script>", "exec"), {"torch": torch}, namespace)
    except Exception as cause:
        error = ScriptError("runtime", f"{type(cause).__name__}: {cause}", 7, 4)
        error.__cause__ = cause
        return error, stmt
    raise AssertionError(f"{statement!r} did not fail")


def test_non_scalar_backward_names_the_tensor_and_its_element_count():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ns = {"x": x, "y": x * 2}
    error, stmt = _failing("y.backward()", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "non_scalar_backward"
    assert ex.text.startswith(
        "y has 3 elements (shape [3]); call y.sum().backward() or "
        "y.backward(torch.ones_like(y))")
    assert ex.fixes == ("y.sum().backward()", "y.backward(torch.ones_like(y))")
    assert (ex.subject, ex.line, ex.col) == ("y", 7, 4)
    assert ex.details == {"elements": 3, "node": "MulBackward0"}


def test_scenario_4_variable_without_gradient_argument_counts_four_elements():
    x = torch.autograd.Variable(torch.ones(2, 2) * 2, requires_grad=True)
    ns = {"x": x, "z": 2 * (x * x) + 5 * x}
    error, stmt = _failing("z.backward()", ns)
    assert explain(error, stmt, ns).text.startswith("z has 4 elements")


def test_second_backward_suggests_retain_graph_or_recomputing():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    ns = {"x": x, "loss": loss}
    error, stmt = _failing("loss.backward()", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "backward_twice"
    assert "loss.backward(retain_graph=True)" in ex.fixes[0]
    assert "recompute" in ex.fixes[1]


def test_inplace_modification_names_the_modified_tensor():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    c = b * b  # saves b
    b.add_(1)
    ns = {"a": a, "b": b, "c": c}
    error, stmt = _failing("c.sum().backward()", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "inplace_modified"
    assert ex.subject == "b"
    assert ex.details["version"] == 1 and ex.details["expected_version"] == 0
    assert any("b = b * 2" in fix for fix in ex.fixes)


def test_item_on_many_elements_offers_reductions():
    ns = {"t": torch.ones(5)}
    error, stmt = _failing("v = t.item()", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "item_many_elements"
    assert ex.details["elements"] == 5
    assert ex.fixes[0] == "t.sum().item()"


def test_backward_without_grad_fn_says_to_set_requires_grad_on_the_leaf():
    x = torch.tensor([1.0, 2.0])
    ns = {"x": x, "loss": (x * 3).sum()}
    error, stmt = _failing("loss.backward()", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "no_grad_fn"
    assert "requires_grad=True" in ex.fixes[0]
    assert "detach" in ex.fixes[1]


def test_inplace_on_a_leaf_suggests_no_grad():
    ns = {"w": torch.ones(3, requires_grad=True)}
    error, stmt = _failing("w += 1", ns)
    ex = explain(error, stmt, ns)
    assert ex.kind == "leaf_inplace"
    assert ex.subject == "w"
    assert "torch.no_grad()" in ex.fixes[0]


@pytest.mark.parametrize("kind", ["syntax", "forbidden", "limit", "runtime"])
def test_other_script_errors_explain_their_kind_without_repeating_the_message(kind):
    # the message is the error's headline (console row, tooltip): the explanation adds to it
    ex = explain(ScriptError(kind, "SyntaxError: '(' was never closed", 3, 0))
    assert (ex.kind, ex.line) == (kind, 3)
    assert "never closed" not in ex.text and "never closed" not in ex.title
    assert ex.text and ex.text not in ex.title


def test_a_limit_explanation_says_where_limits_are_set():
    ex = explain(ScriptError("limit", "too many statements executed", 1, 0))
    assert "settings.limits" in ex.text
