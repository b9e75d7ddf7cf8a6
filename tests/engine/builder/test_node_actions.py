"""The graph's context menu against real PyTorch: an action is enabled exactly when torch accepts
its line, a refusal carries torch's own message, and the written line has the same effect in
torch and in the engine's interpreter.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from engine.builder.edits import BuildError
from engine.builder.node_actions import apply_node_action, node_actions
from engine.builder.workspace import describe
from engine.script import Interpreter

SCRIPT = """import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
c = torch.tensor([4.0, 5.0])
one = torch.tensor([7.0])
k = torch.arange(3)
y = x * s
l = (x * x).sum()
r = x * 3
r.retain_grad()
done = (x * s).sum()
done.backward()
later = y * 2
fresh = (s * s + x).sum()
"""
NAMES = ["x", "s", "c", "one", "k", "y", "l", "r", "done", "later", "fresh"]


def _run_torch(code):
    ns = {"torch": torch}
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        exec(SCRIPT, ns)
        try:
            exec(code, ns)
        except Exception as e:
            return ns, out.getvalue(), f"{type(e).__name__}: {e}"
    return ns, out.getvalue(), None


def _run_engine(source):
    printed = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ns = Interpreter(source, on_print=printed.append).run()
    return ns, "".join(printed)


@pytest.fixture(scope="module")
def workspace():
    ns, _ = _run_engine(SCRIPT)
    return describe(ns, SCRIPT)


def _values(t):
    return None if t is None else np.asarray(t.detach().tolist())


def _grads(ns, names=("x", "s")):
    return {n: _values(ns[n]._grad if hasattr(ns[n], "_grad") else ns[n].grad) for n in names}


def _is_error_reason(reason):
    head = reason.split(":", 1)[0]
    return head.endswith("Error") and " " not in head


@pytest.mark.parametrize("name", NAMES)
def test_actions_follow_torch(name, workspace):
    actions = node_actions(workspace, name, SCRIPT)
    ids = [a.id for a in actions]
    info = workspace.tensors[name]
    assert ("backward" in ids) == (info.numel == 1)
    assert ("backward_ones" in ids) == (info.numel != 1)
    for action in actions:
        t_ns, t_out, t_error = _run_torch(action.code)
        if action.enabled:
            assert t_error is None, f"{action.code}: enabled, but torch says {t_error}"
        elif _is_error_reason(action.reason):
            assert t_error is not None, (
                f"{action.code}: refused ({action.reason}) but torch accepts it")
            assert action.reason.splitlines()[0] == t_error.splitlines()[0]
        else:
            # refused as pointless: torch accepts it, and it changes nothing
            assert t_error is None, f"{action.code}: torch raises {t_error}"
            before, _, _ = _run_torch("")
            t = t_ns[name]
            assert t.retains_grad == before[name].retains_grad, action.code
            assert t.requires_grad == before[name].requires_grad, action.code
            if action.id == "print_grad":
                assert t_out.strip().splitlines()[-1] == "None"


@pytest.mark.parametrize("name", NAMES)
def test_written_lines_do_the_same_in_torch_and_engine(name, workspace):
    for action in node_actions(workspace, name, SCRIPT):
        if not action.enabled:
            with pytest.raises(BuildError) as e:
                apply_node_action(SCRIPT, workspace, name, action.id)
            assert e.value.field == "action"
            continue
        edit = apply_node_action(SCRIPT, workspace, name, action.id)
        assert edit.source.splitlines()[edit.line - 1] == action.code
        e_ns, e_out = _run_engine(edit.source)
        t_ns, t_out, t_error = _run_torch(action.code)
        assert t_error is None
        assert e_out == t_out, action.code
        for leaf, expected in _grads(t_ns).items():
            got = _grads(e_ns)[leaf]
            assert (got is None) == (expected is None), (action.code, leaf)
            assert expected is None or np.allclose(got, expected), (action.code, leaf)
        t, et = t_ns[name], e_ns[name]
        assert (et.retains_grad, et.requires_grad) == (t.retains_grad, t.requires_grad), action.code
        if action.id == "detach":
            new = action.code.split(" = ")[0]
            assert e_ns[new].requires_grad is t_ns[new].requires_grad is False
            assert np.allclose(_values(e_ns[new]), _values(t_ns[new]))


def test_specific_reasons(workspace):
    by_id = {a.id: a for a in node_actions(workspace, "x", SCRIPT)}
    assert by_id["retain_grad"].reason == "x is a leaf: backward() keeps its .grad anyway"
    assert by_id["backward_ones"].code == "x.backward(gradient=torch.ones_like(x))"
    assert by_id["detach"].code == "x_detached = x.detach()"
    assert not by_id["item"].enabled
    r = {a.id: a for a in node_actions(workspace, "r", SCRIPT)}
    assert r["retain_grad"].reason == "r already retains its grad"
    assert r["print_grad"].enabled
    y = {a.id: a for a in node_actions(workspace, "y", SCRIPT)}
    assert not y["requires_grad_"].enabled and "MulBackward0" in y["requires_grad_"].reason
    assert node_actions(workspace, "nope", SCRIPT) == []


def test_detach_name_and_torch_alias(workspace):
    src = SCRIPT.replace("import torch\n", "import torch as T\n").replace("torch.", "T.")
    acts = {a.id: a for a in node_actions(workspace, "y", src)}
    assert acts["backward_ones"].code == "y.backward(gradient=T.ones_like(y))"
    edit = apply_node_action(SCRIPT, workspace, "y", "detach", name="y_const")
    assert edit.source.endswith("y_const = y.detach()\n")
    with pytest.raises(BuildError) as e:
        apply_node_action(SCRIPT, workspace, "y", "detach", name="x")
    assert e.value.field == "name"
