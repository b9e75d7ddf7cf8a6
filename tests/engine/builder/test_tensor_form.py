"""The New Tensor form (engine/builder/tensor_form.py) against real PyTorch.

The written line runs in torch and in the engine (engine.script.run) and must give the same
tensor; every refusal must be a call torch refuses too, with torch's message where it has one,
and every acceptance a call torch accepts.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np
import pytest

import engine
import engine.script
from engine.builder.edits import BuildError
from engine.builder.tensor_form import TensorForm, form_errors, new_tensor, tensor_statement
from engine.builder.workspace import Workspace, describe
from tests.engine.builder.support import run_torch, torch_error

torch = pytest.importorskip("torch")

EMPTY = Workspace.empty()


def same_tensor(mine, theirs) -> None:
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype)
    assert mine.requires_grad == theirs.requires_grad
    assert mine.is_leaf == theirs.is_leaf
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())


def written(form: TensorForm, source: str = "import torch\n") -> str:
    assert form_errors(form, EMPTY) == {}
    return new_tensor(source, EMPTY, form).source


VALUE_FORMS = [
    TensorForm("x", "values", "[[1.0, 2.0], [3.0, 4.0]]"),
    TensorForm("x", "values", "  [1, 2.5, -3]  "),
    TensorForm("x", "values", "3.5"),
    TensorForm("x", "values", "-2.0"),
    TensorForm("x", "values", "[]"),
    TensorForm("x", "values", "1., 2., 3."),  # a bare tuple is bracketed
    TensorForm("x", "values", "(1., 2.), (3., 4.)"),
    TensorForm("x", "values", "((1., 2.), (3., 4.))"),
    TensorForm("x", "values", "[1, 2, 3]", requires_grad=False),
    TensorForm("x", "values", "[True, False]", requires_grad=False),
    TensorForm("x", "values", "[1, 2]", dtype="float64"),
    TensorForm("x", "values", "[1.7, -2]", dtype="int32", requires_grad=False),
    TensorForm("x", "values", "[[0x10, 1_000]]", dtype="float16"),
    TensorForm("x", "values", "[-1, 255]", dtype="uint8", requires_grad=False),
    TensorForm("x", "values", "[2, 0]", dtype="bool", requires_grad=False),
]


@pytest.mark.parametrize("form", VALUE_FORMS, ids=lambda f: f"{f.values.strip()}-{f.dtype}")
def test_values_run_the_same_in_torch_and_engine(form):
    source = written(form)
    same_tensor(engine.script.run(source)["x"], run_torch(source)["x"])


FACTORY_FORMS = [
    TensorForm("w", "zeros", shape="2, 3"),
    TensorForm("w", "ones", shape="(2, 3)"),
    TensorForm("w", "ones", shape="[4]", dtype="float64"),
    TensorForm("w", "zeros", shape="", requires_grad=False),
    TensorForm("w", "zeros", shape="(3,)", dtype="int64", requires_grad=False),
    TensorForm("w", "ones", shape="2, 0, 3"),
    TensorForm("w", "arange", shape="6"),
    TensorForm("w", "arange", shape="2, 3"),
    TensorForm("w", "arange", shape="2, 3, 2", dtype="float64"),
    TensorForm("w", "arange", shape="5", dtype="int64", requires_grad=False),
    TensorForm("w", "arange", shape="2, 2", dtype="int32", requires_grad=False),
]


@pytest.mark.parametrize("form", FACTORY_FORMS, ids=lambda f: f"{f.mode}-{f.shape}-{f.dtype}")
def test_factories_run_the_same_in_torch_and_engine(form):
    source = written(form)
    same_tensor(engine.script.run(source)["w"], run_torch(source)["w"])


@pytest.mark.parametrize("mode", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["auto", "float64"])
def test_random_tensors_have_torchs_shape_dtype_and_flags(mode, dtype):
    # the engine's generator is not torch's: compare everything but the values
    source = written(TensorForm("r", mode, shape="3, 2", dtype=dtype))
    mine, theirs = engine.script.run(source)["r"], run_torch(source)["r"]
    assert (tuple(mine.shape), str(mine.dtype), mine.requires_grad, mine.is_leaf) == \
        (tuple(theirs.shape), str(theirs.dtype), theirs.requires_grad, theirs.is_leaf)


def test_nd_arange_stays_a_leaf_that_gets_its_grad():
    source = written(TensorForm("w", "arange", shape="2, 3")) + "w.pow(2).sum().backward()\n"
    mine, theirs = engine.script.run(source)["w"], run_torch(source)["w"]
    assert mine.is_leaf and theirs.is_leaf
    np.testing.assert_array_equal(mine.grad.numpy(), theirs.grad.numpy())
    assert ".reshape(2, 3).requires_grad_()" in source


def test_statement_spelling():
    assert tensor_statement(TensorForm("x", "values", " [1.0, 2.0] "), "import torch\n") == \
        "x = torch.tensor([1.0, 2.0], requires_grad=True)"
    assert tensor_statement(TensorForm("w", "zeros", shape="(2, 3)"), "") == \
        "w = torch.zeros(2, 3, requires_grad=True)"
    assert tensor_statement(TensorForm("w", "randn", shape="2", dtype="float64"), "") == \
        "w = torch.randn(2, dtype=torch.float64, requires_grad=True)"
    assert tensor_statement(TensorForm("w", "arange", shape="6"), "") == \
        "w = torch.arange(6., requires_grad=True)"


def test_uses_the_scripts_torch_alias():
    source = "import torch as T\n\na = T.ones(2)\n"
    edit = new_tensor(source, EMPTY, TensorForm("x", "values", "[1.0, 2.0]"))
    assert edit.source == source + "x = T.tensor([1.0, 2.0], requires_grad=True)\n"
    assert "import torch\n" not in edit.source
    assert edit.line == 4
    same_tensor(engine.script.run(edit.source)["x"], run_torch(edit.source)["x"])


def test_adds_the_import_when_missing():
    edit = new_tensor("", EMPTY, TensorForm("x", "ones", shape="2"))
    assert edit.source.startswith("import torch\n")
    same_tensor(engine.script.run(edit.source)["x"], run_torch(edit.source)["x"])


# -- refusals --------------------------------------------------------------------------------------

RAGGED = ["[[1, 2], [3]]", "[[1, 2], [3, 4, 5]]", "[[1, 2], 3]", "[1, [2]]", "[1.0, [2.0]]",
          "[True, [False]]", "[[[1., 2.]], [[3.]]]", "[[1.], []]", "[1, (2,)]",
          "[2**3]", "[9223372036854775808]", "[-9223372036854775809]"]


@pytest.mark.parametrize("text", RAGGED)
def test_values_refused_with_torchs_message(text):
    errors = form_errors(TensorForm("x", "values", text, requires_grad=False), EMPTY)
    try:
        data = ast.literal_eval(text)
    except ValueError:  # 2**3 is an expression: refused by the form, never evaluated
        assert "values" in errors
        return
    assert errors["values"] == torch_error(lambda: torch.tensor(data))


OVERFLOWS = [("[300]", "uint8"), ("[-256]", "uint8"), ("[-0.5]", "uint8"), ("[255.5]", "uint8"),
             ("[-129]", "int8"), ("[127.9]", "int8"), ("[1e10]", "int32"), ("[1e30]", "int64"),
             ("[2**70]", "float64")]


@pytest.mark.parametrize("text, dtype", OVERFLOWS)
def test_values_that_do_not_fit_the_dtype(text, dtype):
    errors = form_errors(TensorForm("x", "values", text, dtype=dtype, requires_grad=False), EMPTY)
    if "**" in text:
        assert "values" in errors
        return
    data = ast.literal_eval(text)
    assert errors["values"] == torch_error(lambda: torch.tensor(data, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("text, dtype", [("[1, 2]", "auto"), ("[True]", "auto"),
                                         ("[1.5]", "int64"), ("[1.0]", "bool")])
def test_integer_or_bool_tensors_cannot_require_grad(text, dtype):
    errors = form_errors(TensorForm("x", "values", text, dtype=dtype), EMPTY)
    data = ast.literal_eval(text)
    kwargs = {} if dtype == "auto" else {"dtype": getattr(torch, dtype)}
    message = torch_error(lambda: torch.tensor(data, requires_grad=True, **kwargs))
    assert errors["requires_grad"].startswith(message + ": ")
    assert ("1.0 instead of 1" in errors["requires_grad"]) == (dtype == "auto")


@pytest.mark.parametrize("mode, dtype", [("rand", "int64"), ("randn", "int32"), ("rand", "bool"),
                                         ("randn", "uint8"), ("arange", "bool")])
def test_factories_torch_refuses_for_a_dtype(mode, dtype):
    errors = form_errors(TensorForm("x", mode, shape="4", dtype=dtype, requires_grad=False), EMPTY)
    message = torch_error(lambda: getattr(torch, mode)(4, dtype=getattr(torch, dtype)))
    assert errors == {"dtype": message}


def test_factory_requires_grad_on_integers():
    errors = form_errors(TensorForm("x", "zeros", shape="2", dtype="int64"), EMPTY)
    message = torch_error(lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True))
    assert errors["requires_grad"].startswith(message)


@pytest.mark.parametrize("shape", ["2, -1", "(-3,)"])
def test_negative_sizes_refused_with_torchs_message(shape):
    errors = form_errors(TensorForm("x", "zeros", shape=shape), EMPTY)
    sizes = tuple(int(s) for s in shape.strip("()").split(",") if s.strip())
    assert errors["shape"] == torch_error(lambda: torch.zeros(*sizes))


@pytest.mark.parametrize("shape", ["2.5", "a, 3", "2,,3", "(2, 3", "1e3", "2 3", "100000, 100000"])
def test_bad_shapes_refused(shape):
    assert "shape" in form_errors(TensorForm("x", "ones", shape=shape), EMPTY)


def test_arange_needs_a_length():
    assert "shape" in form_errors(TensorForm("x", "arange", shape=""), EMPTY)


@pytest.mark.parametrize("text", [
    "__import__('os').system('echo hacked')", "[1, 2] + [3]", "x", "[open('f')]", "{1: 2}",
    "[1j]", "'1'", "[1, 2]  # note", "", "[-True]", "lambda: 0", "[*range(3)]",
])
def test_values_other_than_number_literals_are_refused_without_running(text, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the form evaluated the user's text")

    monkeypatch.setattr(builtins, "__import__", forbidden)
    try:
        errors = form_errors(TensorForm("x", "values", text), EMPTY)
    finally:
        monkeypatch.undo()
    assert "values" in errors


def test_syntax_errors_name_the_column():
    errors = form_errors(TensorForm("x", "values", "[1, 2,, 3]"), EMPTY)
    assert "column 7" in errors["values"]


def test_accepting_agrees_with_torch():
    """Over a grid of texts and dtypes: the form accepts exactly what torch.tensor accepts."""
    texts = ["[1, 2]", "[[1, 2], [3]]", "[1.5, -2]", "[True, 1]", "[]", "[[], []]", "[300]",
             "[-1]", "[[1], [2, 3]]", "7", "[2.5e10]"]
    for text in texts:
        for dtype in ["auto", "float32", "int64", "int32", "uint8", "int8", "bool"]:
            for requires_grad in (False, True):
                form = TensorForm("x", "values", text, dtype=dtype, requires_grad=requires_grad)
                kwargs = {} if dtype == "auto" else {"dtype": getattr(torch, dtype)}
                try:
                    torch.tensor(ast.literal_eval(text), requires_grad=requires_grad, **kwargs)
                    accepted = True
                except Exception:
                    accepted = False
                assert (form_errors(form, EMPTY) == {}) == accepted, (text, dtype, requires_grad)


def test_names_refused():
    source = "import torch\nw = torch.ones(2)\nlr = 0.1\n"
    workspace = describe(engine.script.run(source), source)
    for name in ("w", "lr", "torch", "for", "2x", "my x", "", "sum"):
        assert "name" in form_errors(TensorForm(name, "values", "[1.0]"), workspace), name
    assert form_errors(TensorForm("x2", "values", "[1.0]"), workspace) == {}


def test_new_tensor_raises_for_the_first_bad_field():
    with pytest.raises(BuildError) as info:
        new_tensor("", EMPTY, TensorForm("for", "values", "[[1], [2, 3]]"))
    assert info.value.field == "name"
    with pytest.raises(BuildError) as info:
        new_tensor("", EMPTY, TensorForm("x", "values", "[[1.], [2., 3.]]"))
    assert info.value.field == "values"
    assert info.value.message == "expected sequence of length 1 at dim 1 (got 2)"


@pytest.mark.parametrize("text", [t for t in RAGGED if "**" not in t])
def test_engine_tensor_refuses_as_torch(text):
    data = ast.literal_eval(text)
    assert torch_error(lambda: engine.tensor(data)) == torch_error(lambda: torch.tensor(data))
