"""Shape mismatches explained: which dimensions disagree and the usual fixes, from the engine's
own error texts."""

from __future__ import annotations

import ast

import pytest

import engine as T
from engine.session.explain import explain_exception


def error_of(fn) -> BaseException:
    with pytest.raises(RuntimeError) as info:
        fn()
    return info.value


def stmt(code: str):
    return ast.parse(code).body[0]


def test_matmul_names_the_inner_dimensions_and_suggests_the_transpose():
    a, b = T.ones(2, 3), T.ones(2, 3)
    cause = error_of(lambda: a @ b)
    assert "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)" in str(cause)
    e = explain_exception(cause, stmt("y = a @ b"))
    assert e.kind == "shape_mismatch"
    assert "a is 2x3 (it has 3 columns)" in e.text and "b is 2x3 (it has 2 rows)" in e.text
    assert "b's rows must equal a's columns" in e.text
    assert e.fixes[0].startswith("a @ b.T") and "(3x2)" in e.fixes[0]
    assert any(".reshape(" in f for f in e.fixes)
    assert e.details == {"a": [2, 3], "b": [2, 3]}
    # no nn.Linear talk for a plain matmul, and the console's "title: text" says things once
    assert "Linear" not in e.text and not any("Linear" in f for f in e.fixes)
    assert "inner dimensions differ" in e.title and "inner dimensions" not in e.text.lower()


@pytest.mark.parametrize("code, fn", [
    ("y = torch.mm(a, b)", lambda: T.mm(T.ones(2, 3), T.ones(2, 3))),
    ("y = torch.addmm(c, a, b)", lambda: T.addmm(T.ones(2), T.ones(2, 3), T.ones(2, 3))),
])
def test_mm_and_addmm_name_their_operands(code, fn):
    e = explain_exception(error_of(fn), stmt(code))
    assert e.kind == "shape_mismatch" and e.subject == "a"
    assert "a @ b.T" in e.fixes[0]


def test_linear_with_the_wrong_number_of_input_features():
    layer = T.nn.Linear(3, 4)
    cause = error_of(lambda: layer(T.ones(2, 5)))
    e = explain_exception(cause, stmt("y = layer(x)"))
    assert e.kind == "shape_mismatch"
    assert "(it has 5 columns)" in e.text and "(it has 3 rows)" in e.text
    assert "Linear layer expecting 3 input features got 5" in e.text
    assert "(out, in) = (4, 3)" in e.text
    assert any("nn.Linear(5, 4)" in f for f in e.fixes)


def test_a_linear_inside_a_sequential_is_named_as_a_linear_layer():
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU())
    cause = error_of(lambda: model(T.ones(2, 5)))
    e = explain_exception(cause, stmt("y = model(x)"))
    assert e.details["linear"] and "Linear layer expecting 3 input features got 5" in e.text


def test_a_message_worded_otherwise_is_not_repeated_as_the_text():
    e = explain_exception(RuntimeError("mat1 and mat2 shapes cannot be multiplied (odd)"),
                          stmt("y = a @ b"))
    assert e.kind == "shape_mismatch" and "odd" not in e.text


def test_broadcasting_names_the_dimension_and_suggests_unsqueeze():
    cause = error_of(lambda: T.ones(2, 3) + T.ones(2, 4))
    assert "at non-singleton dimension 1" in str(cause)
    e = explain_exception(cause, stmt("c = a + b"))
    assert e.kind == "shape_mismatch"
    assert "Dimension 1 disagrees: a has size 3 there and b has size 4" in e.text
    assert any("unsqueeze(1)" in f for f in e.fixes)
    assert any(".reshape(" in f for f in e.fixes)
    assert e.details == {"a": 3, "b": 4, "dim": 1}


def test_cat_and_stack_say_which_sizes_differ():
    cause = error_of(lambda: T.cat([T.ones(2, 3), T.ones(3, 4)]))
    e = explain_exception(cause, stmt("c = torch.cat([a, b])"))
    assert e.kind == "shape_mismatch"
    assert "size 3" in e.text and "tensor number 1 has 4" in e.text
    assert any("dim=" in f for f in e.fixes)
    cause = error_of(lambda: T.stack([T.ones(2, 3), T.ones(3, 3)]))
    e = explain_exception(cause, stmt("c = torch.stack([a, b])"))
    assert "dimension 0 (2 vs 3)" in e.text
    assert any("torch.cat" in f for f in e.fixes)


def test_vectors_of_different_lengths():
    cause = error_of(lambda: T.ones(3) @ T.ones(4))
    e = explain_exception(cause, stmt("d = u @ v"))
    assert e.kind == "shape_mismatch" and "u has 3, v has 4" in e.text


@pytest.mark.parametrize("na, nb", [(3, 4), (6, 3), (3, 6), (5, 7)])
def test_every_fix_for_vectors_of_different_lengths_runs_in_pytorch(na, nb):
    """QA: the fixes offered for ``a @ b`` of two vectors of different lengths raised in
    PyTorch ((1x3) @ (4x1), a reshape of 3 elements into rows of 4); each offered now runs."""
    torch = pytest.importorskip("torch")
    a, b = T.ones(na), T.ones(nb)
    cause = error_of(lambda: a @ b)
    e = explain_exception(cause, stmt("z = a @ b"), {"a": a, "b": b})
    assert e.kind == "shape_mismatch" and e.fixes
    shapes = [tuple(eval(fix.split("#")[0], {"torch": torch, "a": torch.ones(na),
                                              "b": torch.ones(nb)}).shape) for fix in e.fixes]
    expected = [(na, nb)]  # torch.outer, then a reshape where one length divides the other
    if na % nb == 0:
        expected.append((na // nb,))
    elif nb % na == 0:
        expected.append((nb // na,))
    assert shapes == expected
