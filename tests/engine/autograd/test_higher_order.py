"""Higher-order gradients (``create_graph=True``) against PyTorch: first gradients that carry a
graph, and second derivatives (gradient of a function of the gradient, Hessian-vector products),
for the ops of the table. Values, dtypes and the autograd flags of the results are compared."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engine.differential import check

X = np.array([0.7, -1.3, 2.1], dtype=np.float64)
W = np.array([[0.5, -1.0, 0.25], [1.5, 0.3, -0.8]], dtype=np.float64)
V = np.array([1.0, -2.0, 0.5], dtype=np.float64)


def second_order(f):
    """g = d f / d(x, w) with create_graph; then the gradient of a scalar made of g."""

    def snippet(t):
        x = t.tensor(X, requires_grad=True)
        w = t.tensor(W, requires_grad=True)
        y = f(t, x, w)
        gx, gw = t.autograd.grad(y, [x, w], create_graph=True, allow_unused=True)
        parts = [(gx * t.tensor(V)).sum()] if gx is not None else []
        if gw is not None:
            parts.append((gw * gw).sum())
        total = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        hx, hw = t.autograd.grad(total, [x, w], allow_unused=True)
        return {"gx": gx, "gw": gw, "hx": hx, "hw": hw}

    return snippet


def _flags_only(snippet):
    """The second-order graphs may be built from other nodes than PyTorch's: compare what a user
    sees of them (values, dtype, flags), not their node names."""

    def run(t):
        out = snippet(t)
        return {k: None if v is None else (v.detach().numpy().copy(), str(v.dtype),
                                           v.requires_grad, v.is_leaf)
                for k, v in out.items()}

    return run


FUNCTIONS = {
    "cube": lambda t, x, w: (x ** 3).sum(),
    "pow_float": lambda t, x, w: (x.abs() ** 2.5).sum(),
    "pow_tensor": lambda t, x, w: (x.abs() ** (w[0] * 0.5 + 1)).sum(),
    "rpow": lambda t, x, w: (2 ** x).sum(),
    "sin_exp": lambda t, x, w: (x.sin() * x.exp()).sum(),
    "cos_log": lambda t, x, w: (x.cos() + (x * x + 1).log()).sum(),
    "sqrt_div": lambda t, x, w: ((x * x + 1).sqrt() / (x.abs() + 1)).sum(),
    "tanh_sigmoid": lambda t, x, w: (x.tanh() * x.sigmoid()).sum(),
    "relu_abs": lambda t, x, w: (x.relu() * x + x.abs() * x).sum(),
    "reciprocal": lambda t, x, w: (2 / x).sum(),
    "rsub_neg": lambda t, x, w: ((1 - x) * -x).sum(),
    "clamp": lambda t, x, w: (x.clamp(-1, 1) * x).sum(),
    "maximum_where": lambda t, x, w: (t.maximum(x, w[0]) * t.where(x > 0, x, w[1])).sum(),
    "mv": lambda t, x, w: ((w @ x) ** 2).sum(),
    "mm": lambda t, x, w: ((w @ w.t()) ** 2).sum(),
    "dot": lambda t, x, w: t.dot(x, w[0]) ** 2,
    "vm": lambda t, x, w: ((w[0] @ w.t()) ** 2).sum(),
    "batched": lambda t, x, w: ((w.expand(3, 2, 3) @ x) ** 2).sum(),
    "linear_tanh": lambda t, x, w: ((w @ x).tanh() ** 2).mean(),
    "sum_mean_dims": lambda t, x, w: ((w * w).sum(0) * x).mean() + (w ** 3).mean(1).sum(),
    "max_min": lambda t, x, w: (x * x).max() + (w ** 2).min(dim=1).values.sum(),
    "amax_norm": lambda t, x, w: (w ** 2).amax(1).sum() + x.norm() + w.norm(dim=1).sum(),
    "softmax": lambda t, x, w: (t.softmax(w * x, dim=1) * w).sum(),
    "log_softmax": lambda t, x, w: (t.log_softmax(w * x, dim=-1) ** 2).sum(),
    "indexing": lambda t, x, w: (x[1] * x[0:2] * w[:, [0, 0, 2]]).sum() + w[w > 0].pow(2).sum(),
    "shapes": lambda t, x, w: (w.t().reshape(6) ** 2 * w.view(6)).sum()
    + (x.unsqueeze(0).expand(2, 3) * w).permute(1, 0).flatten().pow(3).sum(),
    "cat_stack": lambda t, x, w: (t.cat([x, w[0]]) ** 2).sum() * t.stack([x, w[1]]).sum(),
    "broadcast": lambda t, x, w: ((w + x) * (w - x.unsqueeze(0))).exp().sum(),
    "inplace": lambda t, x, w: ((x * 1).mul_(x).add_(w[0]) ** 2).sum(),
    "setitem": lambda t, x, w: _setitem(t, x, w),
    "view_inplace": lambda t, x, w: _view_inplace(t, x, w),
    "mse_loss": lambda t, x, w: t.nn.functional.mse_loss(w @ x, t.tensor([0.5, -0.5],
                                                                        dtype=t.float64)),
    "dtype_cast": lambda t, x, w: (x.float() ** 2).sum().double(),
    "cross_entropy": lambda t, x, w: t.nn.functional.cross_entropy(w * x, t.tensor([2, 0])),
    "nll_weighted": lambda t, x, w: t.nn.functional.nll_loss(
        (w * x).log_softmax(1), t.tensor([1, 0]), weight=t.tensor([1.0, 2.0, 0.5],
                                                                  dtype=t.float64)),
    "bce": lambda t, x, w: t.nn.functional.binary_cross_entropy(
        (w * x).sigmoid(), t.tensor([[1.0, 0.0, 1.0], [0.0, 0.5, 1.0]], dtype=t.float64)),
    "bce_logits": lambda t, x, w: t.nn.functional.binary_cross_entropy_with_logits(
        w * x, t.tensor([[1.0, 0.0, 1.0], [0.0, 0.5, 1.0]], dtype=t.float64)),
}


def _view_inplace(t, x, w):
    y = w * 1
    y[0].mul_(x)
    y[:, 1] += x[:2]
    return (y ** 2).sum()


def _setitem(t, x, w):
    y = w * 1
    y[0] = x ** 2
    return (y ** 2).sum()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_second_derivatives_match_torch(name):
    check(_flags_only(second_order(FUNCTIONS[name])), rtol=1e-6, atol=1e-8)


def _backward_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    first = x.grad.clone()
    g = x.grad
    g.sum().backward()  # accumulates d(sum 3x^2)/dx = 6x into x.grad, which kept its graph
    return first, x.grad, g.requires_grad


def _grad_outputs_with_graph(t):
    x = t.tensor(X, requires_grad=True)
    y = x.sin() * x
    v = t.tensor(V, requires_grad=True)
    (g,) = t.autograd.grad(y, x, grad_outputs=v, create_graph=True)
    hv, gv = t.autograd.grad(g.sum(), [x, v])
    return g, hv, gv


def _gradient_penalty(t):
    w = t.tensor(W, requires_grad=True)
    x = t.tensor(X, requires_grad=True)
    out = (w @ x).tanh().sum()
    (gx,) = t.autograd.grad(out, x, create_graph=True)
    penalty = ((gx.norm() - 1) ** 2)
    penalty.backward()
    return w.grad, x.grad


def _third_order(t):
    x = t.tensor(X, requires_grad=True)
    y = (x ** 4).sum()
    (g1,) = t.autograd.grad(y, x, create_graph=True)
    (g2,) = t.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = t.autograd.grad(g2.sum(), x)
    return g1, g2, g3


def _nonleaf_hook_and_retain(t):
    x = t.tensor(X, requires_grad=True)
    h = x * x
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    y = (h * x).sum()
    y.backward(create_graph=True)
    return h.grad, x.grad


def _backward_inputs_create_graph(t):
    x = t.tensor(X, requires_grad=True)
    w = t.tensor(V, requires_grad=True)
    (x * x * w).sum().backward(inputs=[x], create_graph=True)
    g = x.grad
    (hw,) = t.autograd.grad(g.sum(), w)
    return g, hw, w.grad


def _anomaly_with_graph(t):
    x = t.tensor([0.0, 1.0], dtype=t.float64, requires_grad=True)
    with t.autograd.detect_anomaly():
        (g,) = t.autograd.grad((x / x).sum(), x, create_graph=True)
    return (g,)


CASES = {
    "anomaly_with_graph": _anomaly_with_graph,
    "backward_inputs_create_graph": _backward_inputs_create_graph,
    "backward_create_graph": _backward_create_graph,
    "grad_outputs_with_graph": _grad_outputs_with_graph,
    "gradient_penalty": _gradient_penalty,
    "third_order": _third_order,
    "nonleaf_hook_and_retain": _nonleaf_hook_and_retain,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_create_graph_behaviour_matches_torch(name):
    snippet = CASES[name]

    def values_and_flags(t):
        out = snippet(t)
        return tuple(o if not hasattr(o, "detach") else
                     (o.detach().numpy().copy(), str(o.dtype), o.requires_grad) for o in out)

    check(values_and_flags, rtol=1e-6, atol=1e-8)
