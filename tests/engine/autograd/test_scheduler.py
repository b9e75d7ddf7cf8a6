"""The one backward scheduler (``engine/autograd/scheduler.py``) against PyTorch, where its two
arithmetics (arrays, and Tensors for ``create_graph=True``) meet the features written once in it:
hooks, retain_grad, accumulation into an existing ``.grad``, ``inputs=``, ``allow_unused`` /
``materialize_grads``, in-place checks and freeing; and the pruning of ``autograd.grad`` and
``backward(inputs=...)`` to what leads to their inputs (PyTorch's ``exec_info``)."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.autograd.backward import backward_steps
from engine.autograd.higher_order import backward_graph_steps
from engine.events import BACKWARD_STEP, hub
from engine.ops.dispatch import edge
from tests.engine.autograd.test_autograd import _graph_nodes, _labels
from tests.engine.differential import check

X = np.array([0.7, -1.3, 2.1])
W = np.array([[0.5, -1.0, 0.25], [1.5, 0.3, -0.8]])


# -- hooks and create_graph ------------------------------------------------------------------------

def _hooks_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(("x", g.requires_grad)))
    y = x * x
    y.register_hook(lambda g: g * 2)
    y.register_hook(lambda g: seen.append(("y", g.requires_grad, g.grad_fn is not None)))
    (g,) = t.autograd.grad(y.sin().sum(), x, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), x)
    return g, h, seen


def _leaf_hook_returns_a_graph(t):
    x = t.tensor(X, requires_grad=True)
    seen = []

    def hook(g):
        seen.append((g.requires_grad, g.grad_fn.name() if g.grad_fn is not None else None))
        return g * x

    x.register_hook(hook)
    (x ** 3).sum().backward(create_graph=True)
    return x.grad, seen


def _nonleaf_hook_uses_the_tensor(t):
    x = t.tensor(X, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * y)
    (g,) = t.autograd.grad((y * y).sum(), x, create_graph=True)
    return g, t.autograd.grad(g.sum(), x)


def _leaf_hooks_in_grad_and_inputs(t):
    x = t.tensor(X, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    plain = t.autograd.grad((x * x).sum(), x)
    graph = t.autograd.grad((x * x).sum(), x, create_graph=True)
    (x * x).sum().backward(inputs=[x])
    first = x.grad.clone()
    x.grad = None
    (x * x).sum().backward(inputs=[x], create_graph=True)
    return plain, graph, first, x.grad


# -- retain_grad and create_graph ------------------------------------------------------------------

def _retain_grad_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = x * x
    y.retain_grad()
    z = (y * y).sum()
    z.backward(create_graph=True)
    first = y.grad  # a clone (CloneBackward0), then sums out of place
    z.backward(create_graph=True)
    return first, y.grad, x.grad


def _retain_grad_create_graph_then_plain(t):
    x = t.tensor(X, requires_grad=True)
    y = x * x
    y.retain_grad()
    z = (y * y).sum()
    z.backward(create_graph=True)
    z.backward()
    return y.grad, x.grad


def _retain_grad_in_grad(t):
    x = t.tensor(X, requires_grad=True)
    y = x * x
    y.retain_grad()
    t.autograd.grad((y * y).sum(), x, create_graph=True)
    first = y.grad
    t.autograd.grad((y * y).sum(), x)
    return first, y.grad


def _retain_grad_root_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    x.retain_grad()
    y = (x * x).sum()
    y.retain_grad()
    y.backward(create_graph=True)
    return x.grad, y.grad


# -- accumulating into an existing .grad -----------------------------------------------------------

def _plain_then_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    (x * x).sum().backward(retain_graph=True)
    first = x.grad
    (x ** 3).sum().backward(create_graph=True)
    return first, x.grad, first is x.grad


def _create_graph_then_plain(t):
    x = t.tensor(X, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    first = x.grad
    (x * x).sum().backward()
    return first, x.grad, first is x.grad


def _create_graph_dtypes(t):
    x = t.tensor(X, requires_grad=True, dtype=t.float32)
    (x.double() ** 2).sum().backward(create_graph=True)
    return x.grad


def _create_graph_grad_tensors(t):
    x = t.tensor(X, requires_grad=True)
    v = t.tensor([1.0, 2.0, 3.0], requires_grad=True)  # float32: cast, recorded
    (x * x).backward(v, create_graph=True)
    return x.grad, t.autograd.grad(x.grad.sum(), v)


def _create_graph_several_roots(t):
    x = t.tensor(X, requires_grad=True)
    t.autograd.backward([(x * x).sum(), x.sin().sum()], create_graph=True)
    return x.grad, t.autograd.grad(x.grad.sum(), x)


def _create_graph_leaf_root(t):
    x = t.tensor(X, requires_grad=True)
    x.backward(t.ones(3), create_graph=True)
    return x.grad


# -- inputs= and create_graph ----------------------------------------------------------------------

def _inputs_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(W, requires_grad=True)
    (w @ x).tanh().sum().backward(inputs=[x], create_graph=True)
    gx = x.grad
    gx.sum().backward(inputs=[w])
    return gx, w.grad, x.grad


def _inputs_create_graph_nonleaf(t):
    x = t.tensor(X, requires_grad=True)
    m = x * 2
    (m ** 3).sum().backward(inputs=[m, x], create_graph=True)
    return m.grad, x.grad


def _inputs_create_graph_twice(t):
    x = t.tensor(X, requires_grad=True)
    y = (x ** 3).sum()
    y.backward(inputs=[x], create_graph=True)
    y.backward(inputs=[x], create_graph=True)
    return x.grad


def _inputs_create_graph_existing_grad(t):
    x = t.tensor(X, requires_grad=True)
    (x * x).sum().backward()
    first = x.grad
    (x ** 3).sum().backward(inputs=[x], create_graph=True)
    return first, x.grad, first is x.grad


def _inputs_nonleaf_retains_from_then_on(t):
    x = t.tensor(X, requires_grad=True)
    m = x.exp()
    (m ** 3).sum().backward(inputs=[m])
    first = m.grad.clone()
    m.sum().backward()
    return first, m.grad, m.retains_grad, x.grad


def _inputs_retain_grad_elsewhere(t):
    x = t.tensor(X, requires_grad=True)
    y = x * x
    y.retain_grad()
    (y * y).sum().backward(inputs=[x])
    return y.grad, x.grad


# -- allow_unused, materialize_grads, errors, freeing ----------------------------------------------

def _allow_unused_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    u = t.tensor(X, requires_grad=True)
    out = t.autograd.grad((x * x).sum(), [x, u], create_graph=True, allow_unused=True)
    try:
        t.autograd.grad((x * x).sum(), [x, u], create_graph=True)
    except RuntimeError as e:
        return out, e
    return out


def _materialize_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    u = t.tensor(X, requires_grad=True)
    plain = t.autograd.grad((x * x).sum(), [x, u], materialize_grads=True)
    graph = t.autograd.grad((x * x).sum(), [x, u], create_graph=True, materialize_grads=True)
    return plain, graph


def _modified_saved_output_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.mul_(2)
    return t.autograd.grad(z, x, create_graph=True)


def _modified_saved_input_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    y.add_(1)
    return t.autograd.grad(z, x, create_graph=True)


def _freed_then_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    z = (x.exp() * x).sum()
    z.backward()
    return t.autograd.grad(z, x, create_graph=True)


def _create_graph_retains_by_default(t):
    x = t.tensor(X, requires_grad=True)
    z = (x.exp() * x).sum()
    t.autograd.grad(z, x, create_graph=True)
    z.backward()
    z.backward()
    return x.grad


def _create_graph_without_retain_graph_frees(t):
    x = t.tensor(X, requires_grad=True)
    z = (x * 2 * x).sum()
    (g,) = t.autograd.grad(z, x, create_graph=True, retain_graph=False)
    try:
        t.autograd.grad(z, x)
    except RuntimeError as e:
        return g, t.autograd.grad(g.sum(), x), e
    return g


def _anomaly_create_graph(t):
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with t.autograd.detect_anomaly():
        y = (x.sqrt() * 0).sum()
        return t.autograd.grad(y, x, create_graph=True)


# -- only what leads to the inputs runs (grad, backward(inputs=...)) -------------------------------

def _pruned_hooks(t, create_graph):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    seen = []
    e = w.exp()
    e.register_hook(lambda g: seen.append("e"))
    w.register_hook(lambda g: seen.append("w"))
    y = (x * e).sum()
    g = t.autograd.grad(y, x, create_graph=create_graph)
    y = (x * e).sum()
    y.backward(inputs=[x], create_graph=create_graph)
    return g, x.grad, w.grad, seen


def _pruned_branch_modified_in_place(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    e = w.exp()
    y = (x * e.exp()).sum()
    e.mul_(2)  # ExpBackward0 of e.exp() would fail, but does not run
    return t.autograd.grad(y, x)


def _pruned_branch_keeps_its_saved_values(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    f = w.exp().exp()
    t.autograd.grad((x * f).sum(), x)
    return t.autograd.grad(f.sum(), w)


def _pruned_retain_grad(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    e = w.exp()
    e.retain_grad()
    t.autograd.grad((x * e).sum(), x)
    return e.grad


def _captured_node_does_not_run(t):
    x = t.tensor(X, requires_grad=True)
    m = x.exp()
    (g,) = t.autograd.grad((m ** 3).sum(), m)
    (h,) = t.autograd.grad(m.sum(), x)  # ExpBackward0 kept its saved result
    return g, h


def _captured_hooks_order(t):
    # a captured node that runs is captured before its hooks, one that only is captured after
    x = t.tensor(X, requires_grad=True)
    m = x * 2
    m.register_hook(lambda g: g * 3)
    both = t.autograd.grad((m * m).sum(), [m, x])
    only = t.autograd.grad((m * m).sum(), m)
    m2 = x * 2
    m2.retain_grad()
    t.autograd.grad((m2 * m2).sum(), m2)
    return both, only, m2.grad


def _duplicate_inputs(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    plain = t.autograd.grad((x * w).sum(), [x, w, x])
    graph = t.autograd.grad((x * w).sum(), [x, x], create_graph=True)
    return plain, graph


def _unreachable_root(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X, requires_grad=True)
    seen = []
    b = w.sin()
    b.register_hook(lambda g: seen.append("b"))
    return t.autograd.grad([(x * x).sum(), b.sum()], x), seen


CASES = {
    "hooks_create_graph": _hooks_create_graph,
    "leaf_hook_returns_a_graph": _leaf_hook_returns_a_graph,
    "nonleaf_hook_uses_the_tensor": _nonleaf_hook_uses_the_tensor,
    "leaf_hooks_in_grad_and_inputs": _leaf_hooks_in_grad_and_inputs,
    "retain_grad_create_graph": _retain_grad_create_graph,
    "retain_grad_create_graph_then_plain": _retain_grad_create_graph_then_plain,
    "retain_grad_in_grad": _retain_grad_in_grad,
    "retain_grad_root_create_graph": _retain_grad_root_create_graph,
    "plain_then_create_graph": _plain_then_create_graph,
    "create_graph_then_plain": _create_graph_then_plain,
    "create_graph_dtypes": _create_graph_dtypes,
    "create_graph_grad_tensors": _create_graph_grad_tensors,
    "create_graph_several_roots": _create_graph_several_roots,
    "create_graph_leaf_root": _create_graph_leaf_root,
    "inputs_create_graph": _inputs_create_graph,
    "inputs_create_graph_nonleaf": _inputs_create_graph_nonleaf,
    "inputs_create_graph_twice": _inputs_create_graph_twice,
    "inputs_create_graph_existing_grad": _inputs_create_graph_existing_grad,
    "inputs_nonleaf_retains_from_then_on": _inputs_nonleaf_retains_from_then_on,
    "inputs_retain_grad_elsewhere": _inputs_retain_grad_elsewhere,
    "allow_unused_create_graph": _allow_unused_create_graph,
    "materialize_create_graph": _materialize_create_graph,
    "modified_saved_output_create_graph": _modified_saved_output_create_graph,
    "modified_saved_input_create_graph": _modified_saved_input_create_graph,
    "freed_then_create_graph": _freed_then_create_graph,
    "create_graph_retains_by_default": _create_graph_retains_by_default,
    "create_graph_without_retain_graph_frees": _create_graph_without_retain_graph_frees,
    "anomaly_create_graph": _anomaly_create_graph,
    "pruned_hooks": lambda t: _pruned_hooks(t, False),
    "pruned_hooks_create_graph": lambda t: _pruned_hooks(t, True),
    "pruned_branch_modified_in_place": _pruned_branch_modified_in_place,
    "pruned_branch_keeps_its_saved_values": _pruned_branch_keeps_its_saved_values,
    "pruned_retain_grad": _pruned_retain_grad,
    "captured_node_does_not_run": _captured_node_does_not_run,
    "captured_hooks_order": _captured_hooks_order,
    "duplicate_inputs": _duplicate_inputs,
    "unreachable_root": _unreachable_root,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scheduler_matches_torch(name):
    check(CASES[name])


# -- the steps ------------------------------------------------------------------------------------

def _graph(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(W, requires_grad=True)
    a = w @ x
    b = a.tanh() * a.exp()
    return (b + a.sin() * x[:2]).sum(), x, w


def test_both_arithmetics_run_the_same_nodes_in_the_same_order():
    out, _, _ = _graph(engine)
    root = [edge(out)]
    plain = list(backward_steps(root, [np.ones(())], retain_graph=True))
    graph = list(backward_graph_steps(root, [engine.ones(())]))
    assert [s.node for s in plain] == [s.node for s in graph]
    assert [s.index for s in graph] == list(range(len(graph)))
    for p, g in zip(plain, graph):
        # the create_graph pass records arrays too (the debugger reads them alike)
        for a, b in zip([*p.grads_in, *p.grads_out], [*g.grads_in, *g.grads_out]):
            assert (a is None) == (b is None)
            if a is not None:
                assert type(b) is np.ndarray
                np.testing.assert_allclose(a, b)
        assert [(t, type(c)) for t, c in g.leaf_writes] == [
            (t, np.ndarray) for t, _ in p.leaf_writes]


def _torch_ran(torch, run):
    """The nodes torch executes in ``run(out, x, w)``, in order (node pre-hooks fire only for
    nodes that run), labelled as ``_labels`` does."""
    out, x, w = _graph(torch)
    labels = _labels(out.grad_fn)
    ran = []
    for fn in _graph_nodes(out.grad_fn):
        fn.register_prehook(lambda grads, fn=fn: ran.append(labels[id(fn)]))
    run(torch, out, x, w)
    return ran


def _engine_ran(run):
    out, x, w = _graph(engine)
    labels = _labels(out.grad_fn)
    ran = []
    unsubscribe = hub.subscribe(
        lambda ev: ran.append(labels[id(ev.payload["step"].node)])
        if ev.kind == BACKWARD_STEP else None)
    try:
        run(engine, out, x, w)
    finally:
        unsubscribe()
    return ran


RUNS = {
    "backward": lambda t, out, x, w: out.backward(),
    "backward_create_graph": lambda t, out, x, w: out.backward(create_graph=True),
    "grad_x": lambda t, out, x, w: t.autograd.grad(out, x),
    "grad_w_create_graph": lambda t, out, x, w: t.autograd.grad(out, w, create_graph=True),
    "inputs_w": lambda t, out, x, w: out.backward(inputs=[w]),
    "inputs_x_create_graph": lambda t, out, x, w: out.backward(inputs=[x], create_graph=True),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_executed_nodes_and_order_match_torch(name):
    torch = pytest.importorskip("torch")
    assert _engine_ran(RUNS[name]) == _torch_ran(torch, RUNS[name])


def test_a_step_of_the_plain_pass_is_a_backward_step():
    out, x, w = _graph(engine)
    steps = list(out.backward_steps())
    assert [type(s).__name__ for s in steps] == ["BackwardStep"] * len(steps)
    leaves = [t for s in steps for t, _ in s.leaf_writes]
    assert sorted(map(id, leaves)) == sorted(map(id, (x, w)))
    assert all(type(g) is np.ndarray for s in steps for g in s.grads_in)
