"""Double Backward with Custom Functions -- a Square Function saving its input, checked with
gradcheck and gradgradcheck.

Source: PyTorch tutorials, "Double Backward with Custom Functions"
https://pytorch.org/tutorials/intermediate/custom_function_double_backward_tutorial.html

Written for the gradstep corpus, following the tutorial's first example.
Edits vs the source:
- torchviz graph drawing removed; the gradcheck results printed.
- Besides gradcheck, the first and second derivatives at x = 1.5 are printed.
"""
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Because we are saving one of the inputs use `save_for_backward`
        # Save non-tensors and non-inputs/non-outputs directly on ctx
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_out):
        # A function support double backward automatically if autograd
        # is able to record the computations performed in backward
        x, = ctx.saved_tensors
        return grad_out * 2 * x


torch.manual_seed(0)
# Use double precision because finite differencing method magnifies errors
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
# Use gradcheck to verify second-order derivatives
print(torch.autograd.gradgradcheck(Square.apply, x))

x = torch.tensor(1.5, requires_grad=True)
y = Square.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(y, g, gg)
