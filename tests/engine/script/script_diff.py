"""Run one script in real PyTorch (plain ``exec``, in tests only) and through
``engine.script.run``, and describe both runs as comparable data.

What is compared: the printed output (object addresses masked), the error if any (type of the
engine's ``__cause__`` and first line of message, against the exception torch raised), and every
name of the namespace whose value can be described: tensors (values, dtype, shape, flags, grad,
the grad_fn graph), plain Python values, containers of those, and ``nn.Module`` instances (by their
named parameters).
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import engine
from engine.script import Interpreter, ScriptError
from tests.engine.differential import Graph, assert_same, describe, first_line, is_tensor

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class Run:
    """What one run produced: namespace, printed text, and the error (or None)."""

    def __init__(self, namespace, output, error) -> None:
        self.namespace = namespace
        self.output = _ADDRESS.sub("0x?", output)
        self.error = error


def run_torch(source: str) -> Run:
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "<snippet>", "exec"), namespace)
        except Exception as e:
            error = e
    return Run(namespace, out.getvalue(), error)


def run_engine(source: str) -> Run:
    engine.manual_seed(0)
    interp = Interpreter(source)
    error = None
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            namespace = interp.run()
        except ScriptError as e:
            error = e
    if error is not None:
        namespace = interp.globals
    return Run(namespace, "".join(interp.output), error)


def _is_module(x) -> bool:
    return any(c.__name__ == "Module" for c in type(x).__mro__) and hasattr(x, "named_parameters")


def describable(x, depth=0) -> bool:
    if depth > 5:
        return False
    if is_tensor(x) or x is None or isinstance(x, (bool, int, float, str)):
        return True
    if type(x).__name__ in ("Size", "dtype") or _is_module(x):
        return True
    if isinstance(x, BaseException):
        return True
    if isinstance(x, (list, tuple)):
        return all(describable(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return all(isinstance(k, (str, int)) and describable(v, depth + 1) for k, v in x.items())
    return False


def describe_value(x, graph):
    if _is_module(x):
        return ("module", {k: describe(v, graph) for k, v in x.named_parameters()})
    if isinstance(x, (list, tuple)) and not type(x).__name__ == "Size":
        return (type(x).__name__, tuple(describe_value(v, graph) for v in x))
    if isinstance(x, dict):
        return {k: describe_value(v, graph) for k, v in x.items()}
    return describe(x, graph)


def describe_namespace(namespace: dict) -> dict:
    graph = Graph()
    out = {}
    for name in sorted(namespace):
        if name.startswith("__"):
            continue
        value = namespace[name]
        if describable(value):
            out[name] = describe_value(value, graph)
    return out


def describe_error(e):
    if e is None:
        return None
    return (type(e).__name__, first_line(e))


def check_script(source: str, *, output: bool = True, rtol=1e-5, atol=1e-6) -> Run:
    """Assert the engine run of ``source`` is indistinguishable from the torch run."""
    expected = run_torch(source)
    actual = run_engine(source)
    if actual.error is not None:
        assert actual.error.kind == "runtime", f"engine failed: {actual.error!r}"
        assert expected.error is not None, f"only the engine failed: {actual.error!r} " \
            f"(cause {actual.error.__cause__!r})"
        want, got = describe_error(expected.error), describe_error(actual.error.__cause__)
        assert want == got, f"torch raised {want}, the engine {got}"
    else:
        assert expected.error is None, f"torch raised {expected.error!r}, the engine did not"
    if output:
        assert actual.output == expected.output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = describe_namespace(expected.namespace)
        got = describe_namespace(actual.namespace)
    missing = set(want) - set(got)
    assert not missing, f"names missing from the engine's namespace: {missing}"
    for name in want:
        assert_same(want[name], got[name], name, rtol, atol)
    return actual
