"""Extending torch.autograd -- MulConstant, a Function with a non-Tensor argument (backward
returns None for it), and MyCube returning a saved intermediate.

Source: PyTorch documentation, "Extending PyTorch" (examples MulConstant, MyCube)
https://pytorch.org/docs/stable/notes/extending.html

Written for the gradstep corpus, following the notes' examples.
Edits vs the source:
- The combined forward(ctx, ...) form is used instead of setup_context; MyCube simplified to
  saving x and returning dx = 3 * x ** 2 as a second output (as the notes' example does).
"""
import torch
from torch.autograd import Function


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        # ctx is a context object that can be used to stash information
        # for backward computation
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        # We return as many input gradients as there were arguments.
        # Gradients of non-Tensor arguments to forward must be None.
        return grad_output * ctx.constant, None


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # We wish to save dx for backward. In order to do so, it must
        # be returned as an output.
        dx = 3 * x ** 2
        result = x ** 3
        ctx.save_for_backward(x, dx)
        return result, dx

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        # In order for the autograd.Function to work with higher-order
        # gradients, we must add the gradient contribution of `dx`,
        # which is grad_dx * 6 * x.
        result = grad_output * dx + grad_dx * 6 * x
        return result


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = MulConstant.apply(x, 5.5)
y.sum().backward()
print(y, x.grad)


# Wrap MyCube in a function so that it is clearer what the output is
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor(2.0, requires_grad=True)
out = my_cube(x)
g, = torch.autograd.grad(out, x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(out, g, gg)
