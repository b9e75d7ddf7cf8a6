"""A script's own ``torch.autograd.Function`` runs in the interpreter as in PyTorch (the docs'
"Extending torch.autograd" examples), and its ``ctx`` opens only what PyTorch's ctx offers plus the
script's own attributes: never the node's internals."""

from __future__ import annotations

import pytest

from engine.script import ScriptError, run
from tests.engine.script.script_diff import check_script

# After https://pytorch.org/docs/stable/notes/extending.html (MulConstant, MyCube)
MUL_CONSTANT = """
import torch

class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = MulConstant.apply(x, 5.0)
print(type(y.grad_fn).__name__, y)
y.sum().backward()
print(x.grad)
"""

MY_CUBE = """
import torch
from torch.autograd.function import Function

class MyCube(Function):
    @staticmethod
    def forward(ctx, x):
        result = x ** 3
        dx = 3 * x ** 2
        ctx.save_for_backward(x, dx)
        return result, dx

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
out, _ = MyCube.apply(x)
g, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
"""

JACOBIAN = """
import torch
from torch.autograd.functional import jacobian

def f(x):
    return x ** 2 + x.sum()

print(jacobian(f, torch.tensor([1.0, 2.0])))
"""


@pytest.mark.parametrize("source", [MUL_CONSTANT, MY_CUBE, JACOBIAN],
                         ids=["mul_constant", "my_cube_double_backward", "jacobian"])
def test_custom_functions_match_pytorch(source):
    pytest.importorskip("torch")
    check_script(source)


CTX_INTERNALS = """
import torch

class Sneaky(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.{attr} = 1
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g

y = Sneaky.apply(torch.ones(2, requires_grad=True))
"""


@pytest.mark.parametrize("attr", ["op", "next_functions", "saved", "_saved_tensors",
                                  "save_for_backward"])
def test_ctx_refuses_to_overwrite_the_nodes_own_state(attr):
    with pytest.raises(ScriptError) as info:
        run(CTX_INTERNALS.format(attr=attr))
    assert info.value.kind == "forbidden" and info.value.line == 7


def test_ctx_reads_only_what_the_script_set():
    source = CTX_INTERNALS.format(attr="mine") + "print(y.grad_fn.mine)\nprint(y.grad_fn.op)\n"
    with pytest.raises(ScriptError) as info:
        run(source)
    assert info.value.kind == "runtime" and info.value.line == 16
    assert "has no attribute 'op'" in str(info.value.__cause__)
