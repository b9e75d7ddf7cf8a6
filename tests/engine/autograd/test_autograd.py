"""Autograd behaviours against PyTorch: accumulation, retain_grad, hooks, grad modes,
``autograd.grad``, ``backward(inputs=...)``, retain_graph, detach/.data, Variable, anomaly mode,
and the order in which the backward pass runs its nodes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine
from tests.engine.differential import check, version_of

X = np.array([0.5, -1.0, 2.0], dtype=np.float32)
W = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], dtype=np.float32)


def _accumulate(t):
    x = t.tensor(X, requires_grad=True)
    (x * x).sum().backward()
    first = x.grad.clone()
    (x * 3).sum().backward()
    return first, x


def _retain_grad(t):
    x = t.tensor(X, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    first = y.grad.clone()
    z.backward()
    return first, y, x


def _retain_grad_leaf(t):
    x = t.tensor(X, requires_grad=True)
    x.retain_grad()
    (x * 2).sum().backward()
    return x


def _hooks(t):
    seen = []
    x = t.tensor(X, requires_grad=True)
    y = x * 2
    x.register_hook(lambda g: seen.append(("x", g.clone())))
    y.register_hook(lambda g: g * 10)
    handle = y.register_hook(lambda g: seen.append(("y", g.clone())))
    (y ** 2).sum().backward(retain_graph=True)
    handle.remove()
    (y ** 2).sum().backward()
    return tuple(seen), x


def _hook_leaf_replaces(t):
    x = t.tensor(X, requires_grad=True)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 2)
    (x * x).sum().backward()
    return x


def _hook_retained(t):
    x = t.tensor(X, requires_grad=True)
    y = x.exp()
    y.retain_grad()
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    return y, x


def _no_grad(t):
    x = t.tensor(X, requires_grad=True)
    with t.no_grad():
        a = x * 2
        with t.enable_grad():
            b = x * 2
        c = x.sum()
    with t.set_grad_enabled(False):
        d = x + 1
    with t.set_grad_enabled(True):
        e = x + 1
    return a, b, c, d, e, t.is_grad_enabled()


def _grad_mode_decorators(t):
    x = t.tensor(X, requires_grad=True)

    @t.no_grad()
    def off(v):
        return v * 2, t.is_grad_enabled()

    @t.enable_grad()
    def on(v):
        return v * 2

    @t.set_grad_enabled(False)
    def off2(v):
        return v * 2

    with t.no_grad():
        inner = on(x)
    return off(x), inner, off2(x), t.is_grad_enabled()


def _bare_decorators(t):
    x = t.tensor(X, requires_grad=True)

    @t.no_grad
    def off(v):
        return v * 2

    @t.enable_grad
    def on(v):
        return v * 2

    @t.inference_mode()
    def inference(v):
        return v * 2

    with t.no_grad():
        inner = on(x)
    return off(x), inner, inference(x).requires_grad, off.__name__, t.is_grad_enabled()


def _set_grad_enabled_function(t):
    x = t.tensor(X, requires_grad=True)
    t.set_grad_enabled(False)
    a = x * 2
    t.set_grad_enabled(True)
    return a, x * 2


def _autograd_grad(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(W, requires_grad=True)
    u = t.tensor(X, requires_grad=True)
    y = w @ x
    gx, gw, gu = t.autograd.grad(y, [x, w, u], grad_outputs=t.tensor([1.0, -2.0]),
                                 allow_unused=True)
    return gx, gw, gu, x, w


def _autograd_grad_scalar(t):
    x = t.tensor(X, requires_grad=True)
    (g,) = t.autograd.grad((x.sin() * 2).sum(), x)
    return g, x


def _autograd_grad_nonleaf(t):
    x = t.tensor(X, requires_grad=True)
    h = x * 2
    y = (h.tanh()).sum()
    return t.autograd.grad(y, h), x


def _backward_inputs(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(X[::-1].copy(), requires_grad=True)
    (x * w).sum().backward(inputs=[x])
    return x, w


def _autograd_backward(t):
    x = t.tensor(X, requires_grad=True)
    a, b = x * 2, x.exp()
    t.autograd.backward([a, b], [t.ones(3), t.full((3,), 0.5)])
    return x


def _retain_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x


def _backward_gradient(t):
    x = t.tensor(W, requires_grad=True)
    y = x * x
    y.backward(t.tensor(W * 2))
    return x


def _detach(t):
    x = t.tensor(X, requires_grad=True)
    y = x * 2
    d = y.detach()
    d.add_(1)  # shares memory and the version counter with y
    return y, d, version_of(y)


def _detach_(t):
    x = t.tensor(X, requires_grad=True)
    y = x * 2
    y.detach_()
    return y


def _data(t):
    x = t.tensor(X, requires_grad=True)
    d = x.data
    d.mul_(2)
    return x, d, version_of(x)


def _variable(t):
    from_variable = t.autograd.Variable(t.ones(2, 2) * 2, requires_grad=True)
    z = 2 * (from_variable * from_variable) + 5 * from_variable
    z.backward(t.ones(2, 2))
    return type(from_variable).__name__, from_variable, z


def _requires_grad_flags(t):
    x = t.tensor(X)
    x.requires_grad_()
    y = x * 2
    z = t.tensor(X) * 2
    x2 = t.tensor(X, requires_grad=True)
    x2.requires_grad = False
    return x, y, z, x2, y.is_leaf, z.is_leaf


def _grad_set_none(t):
    x = t.tensor(X, requires_grad=True)
    (x * 2).sum().backward()
    x.grad = None
    (x * 3).sum().backward()
    x.grad.zero_()
    return x


def _anomaly_backward(t):
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with t.autograd.detect_anomaly():
        y = (x / x).sum()
        y.backward()


def _anomaly_sqrt(t):
    x = t.tensor([0.0, 1.0], requires_grad=True)
    with t.autograd.set_detect_anomaly(True):
        y = (x.sqrt() * 0).sum()
        y.backward()
    return x


def _anomaly_off(t):
    x = t.tensor([0.0, 1.0], requires_grad=True)
    (x / x).sum().backward()
    return x


CASES = {
    "accumulate": _accumulate,
    "retain_grad": _retain_grad,
    "retain_grad_leaf": _retain_grad_leaf,
    "hooks": _hooks,
    "hook_leaf_replaces": _hook_leaf_replaces,
    "hook_retained": _hook_retained,
    "no_grad": _no_grad,
    "grad_mode_decorators": _grad_mode_decorators,
    "set_grad_enabled_function": _set_grad_enabled_function,
    "bare_decorators": _bare_decorators,
    "autograd_grad": _autograd_grad,
    "autograd_grad_scalar": _autograd_grad_scalar,
    "autograd_grad_nonleaf": _autograd_grad_nonleaf,
    "backward_inputs": _backward_inputs,
    "autograd_backward": _autograd_backward,
    "retain_graph": _retain_graph,
    "backward_gradient": _backward_gradient,
    "detach": _detach,
    "detach_": _detach_,
    "data": _data,
    "variable": _variable,
    "requires_grad_flags": _requires_grad_flags,
    "grad_set_none": _grad_set_none,
    "anomaly_backward": _anomaly_backward,
    "anomaly_sqrt": _anomaly_sqrt,
    "anomaly_off": _anomaly_off,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_autograd_matches_torch(name):
    check(CASES[name])


def test_variable_returns_plain_tensor():
    v = engine.autograd.Variable(engine.ones(2), requires_grad=True)
    assert type(v) is engine.Tensor


def test_anomaly_mode_notes_the_forward_op():
    """Beyond PyTorch: anomaly mode names the first op whose output became NaN/Inf."""
    x = engine.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with engine.autograd.detect_anomaly():
            y = x.log() * 2
            y.sum()
    texts = [str(w.message) for w in caught]
    assert any("'log'" in m and "LogBackward0" in m for m in texts), texts
    assert not any("'mul'" in m for m in texts), texts  # only the first op, from finite inputs
    assert y.grad_fn.name() == "MulBackward0"


# -- backward order --------------------------------------------------------------------------------

def _graph_nodes(root):
    """Nodes reachable from ``root`` in a fixed DFS order (the same in both libraries)."""
    order, stack, seen = [], [root], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return order


def _labels(root):
    return {id(fn): f"{fn.name()}#{i}" for i, fn in enumerate(_graph_nodes(root))}


def torch_order(torch, build):
    out = build(torch)
    labels = _labels(out.grad_fn)
    ran = []
    for fn in _graph_nodes(out.grad_fn):
        fn.register_prehook(lambda grads, fn=fn: ran.append(labels[id(fn)]))
    out.backward()
    return ran


def engine_order(build):
    out = build(engine)
    labels = _labels(out.grad_fn)
    return [labels[id(step.node)] for step in out.backward_steps()]


def _fan(t):
    x = t.tensor(X, requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    return (b * c + a).sum()


def _mlp(t):
    x = t.tensor(np.ones((4, 3), dtype=np.float32))
    w1 = t.tensor(W.T.copy(), requires_grad=True)
    b1 = t.tensor(np.zeros(2, dtype=np.float32), requires_grad=True)
    w2 = t.tensor(np.ones((2, 1), dtype=np.float32), requires_grad=True)
    h = (x @ w1 + b1).tanh()
    return ((h @ w2 - 1) ** 2).mean()


def _diamond(t):
    x = t.tensor(X, requires_grad=True)
    y = t.tensor(X * 2, requires_grad=True)
    s = x + y
    p = x * y
    q = s.exp() + p.sigmoid() + s * p
    return q.sum()


def _long_and_short(t):
    x = t.tensor(X, requires_grad=True)
    long = x.exp().sin().cos().tanh()
    short = x * 3
    return (long + short + x).sum()


def _shared_leaf_chain(t):
    x = t.tensor(X, requires_grad=True)
    y = x
    for _ in range(4):
        y = y * x + 1
    return y.sum()


def _cat_stack(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(W, requires_grad=True)
    s = t.stack([x, x * 2])
    c = t.cat([s, w]).softmax(-1)
    return c.max() + c[0].sum()


def _inplace_views(t):
    x = t.tensor(W, requires_grad=True)
    z = t.tensor(X, requires_grad=True)
    y = x * 1
    y[0].mul_(z)
    y[:, 1] += z[:2]
    y.relu_()
    return (y * y).sum() + z.sum()


def _matmul_batched(t):
    a = t.tensor(np.ones((2, 3, 4), dtype=np.float32), requires_grad=True)
    b = t.tensor(np.ones((4, 2), dtype=np.float32), requires_grad=True)
    v = t.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    return ((v @ a) @ b).sum() + (a.transpose(1, 2) @ v).mean()


ORDER_GRAPHS = {"inplace_views": _inplace_views, "matmul_batched": _matmul_batched, "fan": _fan,
                "mlp": _mlp, "diamond": _diamond, "long_and_short": _long_and_short,
                "shared_leaf_chain": _shared_leaf_chain, "cat_stack": _cat_stack}


@pytest.mark.parametrize("name", sorted(ORDER_GRAPHS))
def test_backward_order_matches_torch(name):
    torch = pytest.importorskip("torch")
    expected = torch_order(torch, ORDER_GRAPHS[name])
    assert len(expected) > 3
    assert engine_order(ORDER_GRAPHS[name]) == expected
