"""Differential-testing helpers: run one snippet in real PyTorch and in the engine, compare all.

A snippet is a function of the torch module (``lambda torch: ...``) that returns what should be
compared: a tensor, a Python value, or a (nested) tuple/list/dict of them. ``describe`` turns such
a result into plain data -- values, dtype, shape, the autograd flags, ``.grad``, the version counter
and the whole ``grad_fn`` graph (names, ``next_functions`` with their ``(None, 0)`` entries, which
leaf each ``AccumulateGrad`` writes to) -- so that the two descriptions can be compared directly.
An exception is described as its type name and the first line of its message.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import engine


def _torch():
    return pytest.importorskip("torch")


def is_tensor(x) -> bool:
    return type(x).__name__ in ("Tensor", "Parameter") and hasattr(x, "grad_fn")


def version_of(t) -> int:
    """The version counter as torch's ``t._version`` int (the engine keeps a shared counter)."""
    v = t._version
    return v if isinstance(v, int) else v.value


def _values(t):
    arr = np.array(t.detach().numpy() if hasattr(t, "detach") else t, copy=True)
    return arr


class Graph:
    """Describes grad_fn graphs, naming leaves by order of first appearance."""

    def __init__(self) -> None:
        self.leaves: dict[int, int] = {}
        self.seen: dict[int, object] = {}

    def leaf_label(self, t) -> str:
        return f"leaf{self.leaves.setdefault(id(t), len(self.leaves))}"

    def node(self, fn):
        if fn is None:
            return None
        key = id(fn)
        if key in self.seen:
            return ("ref", self.seen[key])
        label = f"n{len(self.seen)}"
        self.seen[key] = label
        name = fn.name()
        if name.endswith("AccumulateGrad"):
            return (label, name, self.leaf_label(fn.variable))
        nexts = tuple((self.node(f), nr) for f, nr in fn.next_functions)
        return (label, name, nexts)


def describe(x, graph: Graph | None = None):
    graph = graph or Graph()
    if is_tensor(x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = x.grad
        return {
            "kind": "tensor",
            "dtype": str(x.dtype),
            "shape": tuple(x.shape),
            "values": _values(x),
            "requires_grad": x.requires_grad,
            "is_leaf": x.is_leaf,
            "retains_grad": x.retains_grad,
            "version": version_of(x),
            "leaf": graph.leaf_label(x) if x.is_leaf and x.requires_grad else None,
            "grad_fn": graph.node(x.grad_fn),
            "grad": None if g is None else (str(g.dtype), tuple(g.shape), _values(g)),
        }
    if isinstance(x, BaseException):
        return {"kind": "error", "type": type(x).__name__, "message": first_line(x)}
    if type(x).__name__ == "Size":
        return ("Size", tuple(x))
    if isinstance(x, dict):
        return {k: describe(v, graph) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return (type(x).__name__ if type(x) in (tuple, list) else "return_type",
                tuple(describe(v, graph) for v in x))
    if hasattr(x, "name") and callable(x.name) and hasattr(x, "next_functions"):
        return graph.node(x)
    if type(x).__name__ == "dtype":
        return ("dtype", str(x))
    return ("py", type(x).__name__, x)


def first_line(e: BaseException) -> str:
    text = str(e.args[0]) if e.args else ""
    return text.splitlines()[0] if text else ""


def run(module, snippet):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return snippet(module)
    except Exception as e:
        return e


def assert_same(expected, actual, path="result", rtol=1e-5, atol=1e-6):
    """Compare two descriptions, reporting the path of the first difference."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        assert expected.keys() == actual.keys(), (
            f"{path}: keys {expected.keys()} != {actual.keys()}")
        for k in expected:
            assert_same(expected[k], actual[k], f"{path}.{k}", rtol, atol)
        return
    if isinstance(expected, tuple) and isinstance(actual, tuple):
        assert len(expected) == len(actual), f"{path}: {expected!r} != {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]", rtol, atol)
        return
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        e, a = np.asarray(expected), np.asarray(actual)
        assert e.shape == a.shape, f"{path}: shape {e.shape} != {a.shape}"
        assert e.dtype == a.dtype, f"{path}: dtype {e.dtype} != {a.dtype}"
        if e.dtype.kind == "f":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
            # signed zeros and infinities must agree too
            assert np.array_equal(np.signbit(e[np.isinf(e)]), np.signbit(a[np.isinf(a)])), path
        else:
            assert np.array_equal(e, a), f"{path}: {e!r} != {a!r}"
        return
    if isinstance(expected, float) and isinstance(actual, float):
        assert math.isclose(expected, actual, rel_tol=rtol, abs_tol=atol) or (
            math.isnan(expected) and math.isnan(actual)
        ), f"{path}: {expected!r} != {actual!r}"
        return
    assert expected == actual, f"{path}: torch {expected!r} != engine {actual!r}"


def check(snippet, rtol=1e-5, atol=1e-6):
    """Run ``snippet`` in torch and in the engine and assert everything observable is the same."""
    torch = _torch()
    expected = describe(run(torch, snippet))
    actual = describe(run(engine, snippet))
    assert_same(expected, actual, rtol=rtol, atol=atol)
    return expected


@pytest.fixture
def threads_as_torchs():
    """The engine orders a big sum (and arange's chunks) as torch's threads split it: compare
    with torch at torch's present thread count (test modules of the suite set it to 1 when they
    are collected), whatever the engine's default would be."""
    import engine.threads

    torch = _torch()
    saved = engine.threads.SETTINGS["intra"]
    engine.threads.SETTINGS["intra"] = torch.get_num_threads()
    yield
    engine.threads.SETTINGS["intra"] = saved
