"""Hypothesis-generated programs (from a small grammar mixing PyTorch code, Python features and
attack fragments) and random text: the only exception ever seen is ScriptError, no file is
written, and the engine's grad mode survives."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.autograd.grad_mode import state as grad_state
from engine.script import Interpreter, Limits, ScriptError

FUZZ_LIMITS = Limits(max_statements=20_000, max_tensor_elements=100_000, max_total_bytes=16 << 20,
                     max_recursion=30, max_string=20_000, max_list=20_000, max_int_bits=4_000,
                     max_output=20_000)

NAMES = ["x", "y", "w", "t", "lst", "d", "f", "g", "net", "np", "torch", "nn", "i"]
DANGEROUS_NAMES = ["open", "getattr", "type", "eval", "exec", "vars", "globals", "__import__",
                   "__builtins__", "compile", "input", "object"]
BUILTINS = ["len", "sum", "list", "tuple", "str", "repr", "sorted", "min", "max", "abs", "print",
            "range", "enumerate", "zip", "map", "iter", "next", "pow", "dict", "set", "int",
            "float", "isinstance", "any", "all", "reversed", "divmod", "round", "bool"]
ATTRS = ["grad", "sum", "backward", "shape", "item", "T", "format", "append", "requires_grad",
         "data", "numpy", "tolist", "grad_fn", "next_functions", "parameters", "zero_grad", "mro",
         "join", "exp", "mean", "detach", "weight", "relu", "view", "reshape", "keys", "copy"]
DANGEROUS_ATTRS = ["__class__", "__dict__", "_data", "gi_frame", "tofile", "f_globals",
                   "__globals__", "__subclasses__", "op", "format_map", "ctypes", "__init__"]
ATOMS = ["0", "1", "2", "-1", "3.5", "10**6", "2**64", "'a'", "'{0}'", "'{0.__class__}'", "None",
         "True", "[1, 2, 3]", "(1, 2)", "{'k': 1}", "range(4)", "torch.ones(2, 3)",
         "torch.tensor([1.0, 2.0], requires_grad=True)", "torch.zeros(3)", "np.zeros(2)",
         "nn.Linear(3, 2)", "torch.no_grad()", "lambda v: v * 2", "x", "y", "w", "lst"]
OPS = ["+", "-", "*", "/", "//", "%", "**", "@", "<<", "&", "|", "==", "<", "in", "and", "or"]

PRELUDE = ("import torch\nimport numpy as np\nimport torch.nn as nn\n"
           "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x * 2\nw = 3\n"
           "lst = [1, 2]\nd = {'a': 1}\n")


def expressions(hostile: bool):
    leaf = st.sampled_from(ATOMS + NAMES + (DANGEROUS_NAMES if hostile else []))
    attr = st.sampled_from(ATTRS + (DANGEROUS_ATTRS if hostile else []))
    callee = st.sampled_from(BUILTINS + (DANGEROUS_NAMES if hostile else []))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(callee, st.lists(inner, max_size=3))
            .map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, attr).map(lambda t: f"({t[0]}).{t[1]}"),
            st.tuples(inner, attr).map(lambda t: f"({t[0]}).{t[1]}()"),
            st.tuples(inner, inner).map(lambda t: f"({t[0]})[{t[1]}]"),
            st.tuples(inner, inner).map(lambda t: f"[{t[0]} for i in {t[1]}]"),
            inner.map(lambda e: f'f"{{{e}!r:>8}}"' if '"' not in e else e),
            inner.map(lambda e: f"(lambda q: {e})(1)"),
            inner.map(lambda e: f"-{e}"),
        )

    return st.recursive(leaf, extend, max_leaves=6)


def statements(hostile: bool):
    expr = expressions(hostile)
    simple = st.one_of(
        st.tuples(st.sampled_from(NAMES), expr).map(lambda t: f"{t[0]} = {t[1]}"),
        expr,
        st.tuples(expr, st.sampled_from(ATTRS + (DANGEROUS_ATTRS if hostile else [])), expr)
        .map(lambda t: f"({t[0]}).{t[1]} = {t[2]}"),
        st.tuples(expr, expr, expr).map(lambda t: f"({t[0]})[{t[1]}] = {t[2]}"),
        st.tuples(st.sampled_from(NAMES), st.sampled_from(OPS[:8]), expr)
        .map(lambda t: f"{t[0]} {t[1]}= {t[2]}"),
        st.sampled_from(["import torch.nn.functional as F", "from torch import optim", "del w",
                         "pass", "y.sum().backward()", "x.grad = None", "import numpy.random"]
                        + (["import os", "torch.tensor = None"] if hostile else [])),
    )

    def extend(inner):
        block = st.lists(inner, min_size=1, max_size=3).map(
            lambda body: "\n".join("    " + line for s in body for line in s.split("\n")))
        return st.one_of(
            st.tuples(expr, block).map(lambda t: f"if {t[0]}:\n{t[1]}"),
            st.tuples(expr, block).map(lambda t: f"for i in {t[0]}:\n{t[1]}"),
            st.tuples(expr, block).map(lambda t: f"while {t[0]}:\n{t[1]}"),
            block.map(lambda b: f"with torch.no_grad():\n{b}"),
            st.tuples(block, expr).map(lambda t: f"def f(a, *r, k=1):\n{t[0]}\n    return {t[1]}"),
            block.map(lambda b: f"try:\n{b}\nexcept Exception as e:\n    w = e"),
            block.map(lambda b: "class C(nn.Module):\n    def forward(self, v):\n"
                                "        return v\n    def g(self):\n"
                                + "\n".join("    " + line for line in b.split("\n"))),
        )

    return st.recursive(simple, extend, max_leaves=5)




def _programs(hostile: bool):
    return st.lists(statements(hostile), min_size=1, max_size=6).map(
        lambda body: PRELUDE + "\n".join(body) + "\n")


# mostly programs that get to run; a third carry attack fragments (refused, mostly statically)
programs = st.one_of(_programs(False), _programs(False), _programs(True))


def run_safely(source: str, stepping: bool, folder) -> None:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        _run_in_cwd(source, stepping)
    finally:
        os.chdir(cwd)


def _run_in_cwd(source: str, stepping: bool) -> None:
    before = set(os.listdir("."))
    interp = Interpreter(source, limits=FUZZ_LIMITS)
    try:
        if stepping:
            for _ in interp.steps():
                pass
        else:
            interp.run()
    except ScriptError as e:
        assert e.kind in ("syntax", "forbidden", "limit", "runtime")
        assert isinstance(e.message, str) and e.message
        if e.kind == "runtime":
            assert e.__cause__ is not None
    assert set(os.listdir(".")) == before
    assert grad_state.enabled and not grad_state.anomaly


FUZZ_SETTINGS = settings(max_examples=120, deadline=None,
                         suppress_health_check=[HealthCheck.too_slow,
                                                HealthCheck.function_scoped_fixture])


@FUZZ_SETTINGS
@given(source=programs, stepping=st.booleans())
def test_generated_programs_raise_only_script_errors(source, stepping, tmp_path_factory):
    run_safely(source, stepping, tmp_path_factory.mktemp("fuzz"))


@FUZZ_SETTINGS
@given(source=st.text(max_size=300))
def test_random_text_raises_only_script_errors(source, tmp_path_factory):
    run_safely(source, False, tmp_path_factory.mktemp("fuzz"))


@FUZZ_SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes_raise_only_script_errors(data, tmp_path_factory):
    run_safely(PRELUDE + data.decode("utf-8", errors="replace"), False,
               tmp_path_factory.mktemp("fuzz"))
