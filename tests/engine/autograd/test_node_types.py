"""``type(y.grad_fn)`` is PyTorch's node type by name: tutorials print ``type(y.grad_fn).__name__``
(``MulBackward0``), ``type(y.grad_fn)`` (``<class 'MulBackward0'>``) and walk
``next_functions`` printing each type. Engine against real PyTorch, directly and in a script."""

from __future__ import annotations

import pytest

from tests.engine.differential import check
from tests.engine.script.script_diff import check_script

_EXPRESSIONS = [
    "(x * 2).sum()", "x.exp().mean()", "(x @ x.T).relu()", "x.view(2, 2).t()", "x[1:].sigmoid()",
    "torch.cat([x, x]).tanh()", "x.unbind(0)[0]", "x.split(1)[1] * 3", "x.max()",
]


def _walk_types(t, y):
    out, stack, seen = [], [y.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append((type(fn).__name__, str(type(fn)), fn.__class__.__name__))
        stack.extend(f for f, _ in fn.next_functions)
    return out


@pytest.mark.parametrize("expr", _EXPRESSIONS)
def test_node_types_are_named_as_torch_names_them(expr):
    def snippet(t):
        x = t.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
        if "view" in expr or "@" in expr:
            x = t.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        y = eval(expr, {"x": x, "torch": t})
        return _walk_types(t, y)
    check(snippet)


def test_in_place_and_custom_function_node_types():
    def snippet(t):
        x = t.ones(3, requires_grad=True)
        y = x.clone()
        y[0] = 5.0
        y.mul_(2)

        class Twice(t.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        z = Twice.apply(x)
        return _walk_types(t, y), type(z.grad_fn).__name__
    check(snippet)


def test_a_script_prints_node_types_as_torch():
    check_script("""import torch
x = torch.ones(2, 2, requires_grad=True)
y = (x * 3).mean()
print(type(y.grad_fn).__name__, type(y.grad_fn))
print([type(f).__name__ for f, _ in y.grad_fn.next_functions])
print(isinstance(y.grad_fn, type(y.grad_fn)))
""")
