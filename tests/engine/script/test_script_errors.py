"""ScriptError: kinds, positions of the failing expression, and the engine's exception as cause."""

from __future__ import annotations

import pytest

import engine
from engine.script import Interpreter, Limits, ScriptError, run


def error_of(source, **kwargs) -> ScriptError:
    with pytest.raises(ScriptError) as err:
        run(source, **kwargs)
    return err.value


def test_syntax_error_has_line_and_column():
    e = error_of("x = 1\ny = (2 +\n")
    assert e.kind == "syntax"
    assert e.line == 2 and e.col is not None
    assert e.message.startswith("SyntaxError: ")


def test_indentation_error_is_a_syntax_error():
    e = error_of("if True:\nx = 1\n")
    assert e.kind == "syntax" and e.line == 2
    assert "IndentationError" in e.message


def test_non_text_source_is_a_syntax_error():
    assert error_of(b"x = 1").kind == "syntax"


def test_runtime_error_points_at_the_failing_expression():
    source = "import torch\na = torch.ones(2, 3)\nb = torch.ones(2, 3)\nc = 1 + (a @ b)\n"
    e = error_of(source)
    assert (e.kind, e.line, e.col) == ("runtime", 4, 9)
    with pytest.raises(RuntimeError) as engine_error:
        engine.ones(2, 3) @ engine.ones(2, 3)
    assert type(e.__cause__) is RuntimeError
    assert str(e.__cause__) == str(engine_error.value)
    assert e.message == f"RuntimeError: {engine_error.value}"


def test_runtime_error_inside_a_function_points_into_it():
    source = "def f(v):\n    w = v + 1\n    return w.missing\n\nr = f(1)\n"
    e = error_of(source)
    assert (e.kind, e.line, e.col) == ("runtime", 3, 11)
    assert isinstance(e.__cause__, AttributeError)


def test_name_error_is_python_s():
    e = error_of("y = x + 1\n")
    assert e.kind == "runtime" and isinstance(e.__cause__, NameError)
    assert e.message == "NameError: name 'x' is not defined"


def test_forbidden_has_position_of_the_construct():
    e = error_of("import torch\nx = torch.ones(1)\nc = 3 + x.__class__.__base__\n")
    assert (e.kind, e.line, e.col) == ("forbidden", 3, 8)


def test_forbidden_names_are_refused_before_anything_runs():
    printed = []
    with pytest.raises(ScriptError) as err:
        Interpreter("print('ran')\nimport os\n", on_print=printed.append).run()
    assert err.value.kind == "forbidden" and err.value.line == 2
    assert printed == []


def test_limit_errors_have_a_line():
    e = error_of("x = 1\nwhile True:\n    x = x + 1\n", limits=Limits(max_statements=500))
    assert e.kind == "limit" and e.line in (2, 3)
    assert error_of("s = 'ab' * 10**9\n").line == 1
    assert error_of("import torch\nt = torch.zeros(10**5, 10**5)\n").line == 2


def test_python_recursion_error_becomes_a_limit():
    source = "def f(n):\n    return f(n + 1)\nf(0)\n"
    e = error_of(source, limits=Limits(max_recursion=10**6))
    assert e.kind == "limit"
    assert isinstance(e.__cause__, RecursionError)


def test_raise_in_script_keeps_the_exception():
    e = error_of("raise ValueError('bad value')\n")
    assert e.kind == "runtime" and type(e.__cause__) is ValueError
    assert e.message == "ValueError: bad value"


def test_only_runtime_errors_can_be_caught():
    source = ("n = 0\ntry:\n    while True:\n        n = n + 1\nexcept Exception:\n"
              "    n = -1\n")
    e = error_of(source, limits=Limits(max_statements=300))
    assert e.kind == "limit"
    e = error_of("try:\n    import os\nexcept Exception:\n    pass\n")
    assert e.kind == "forbidden"


def test_caught_error_is_the_engine_exception():
    ns = run("import torch\ntry:\n    torch.ones(2).item()\nexcept RuntimeError as e:\n"
             "    caught = e\n    text = str(e)\n")
    assert type(ns["caught"]) is RuntimeError
    assert ns["text"].startswith("a Tensor with 2 elements cannot be converted to Scalar")


def test_str_of_script_error_names_the_line():
    e = error_of("x = 1\ny = z\n")
    assert str(e) == "line 2: NameError: name 'z' is not defined"


def test_missing_engine_attribute_is_pytorch_s_attribute_error():
    e = error_of("import torch\nf = torch.no_such_function\n")
    assert e.kind == "runtime" and isinstance(e.__cause__, AttributeError)
    assert e.message == "AttributeError: module 'torch' has no attribute 'no_such_function'"


def test_keyboard_interrupt_below_becomes_stopped(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine.Tensor, "sum", interrupted)
    e = error_of("import torch\nx = torch.ones(2)\ny = x.sum()\n")
    assert (e.kind, e.line) == ("stopped", 3)
    assert isinstance(e.__cause__, KeyboardInterrupt)


def test_errors_in_script_functions_called_by_engine_keep_their_line():
    source = ("import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n"
              "        y = x + 'a'\n        return y\nout = M()(1)\n")
    e = error_of(source)
    assert (e.kind, e.line) == ("runtime", 4)
    assert type(e.__cause__) is TypeError
