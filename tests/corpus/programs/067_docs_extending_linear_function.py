"""Extending torch.autograd -- LinearFunction (forward/setup_context/backward with
ctx.needs_input_grad), checked with gradcheck.

Source: PyTorch documentation, "Extending PyTorch" (Extending torch.autograd, example
LinearFunction)
https://pytorch.org/docs/stable/notes/extending.html

Written for the gradstep corpus, following the notes' LinearFunction and its gradcheck use.
Edits vs the source:
- The combined forward(ctx, input, weight, bias) form of the notes' older edition is used
  (instead of the separate setup_context staticmethod).
- torch.manual_seed(0) instead of unseeded torch.randn; gradcheck result printed, plus one
  comparison against F.linear's gradients.
"""
import torch
import torch.nn.functional as F
from torch.autograd import Function


class LinearFunction(Function):

    # Note that forward, setup_context, and backward are @staticmethods
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    # This function has only a single output, so it gets only one gradient
    @staticmethod
    def backward(ctx, grad_output):
        # This is a pattern that is very convenient - at the top of backward
        # unpack saved_tensors and initialize all gradients w.r.t. inputs to
        # None. Thanks to the fact that additional trailing Nones are
        # ignored, the return statement is simple even when the function has
        # optional inputs.
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None

        # These needs_input_grad checks are optional and there only to
        # improve efficiency. If you want to make your code simpler, you can
        # skip them. Returning gradients for inputs that don't require it is
        # not an error.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)

        return grad_input, grad_weight, grad_bias


linear = LinearFunction.apply

from torch.autograd import gradcheck

torch.manual_seed(0)
# gradcheck takes a tuple of tensors as input, check if your gradient
# evaluated with these tensors are close enough to numerical
# approximations and returns True if they all verify this condition.
input = (torch.randn(20, 20, dtype=torch.double, requires_grad=True),
         torch.randn(30, 20, dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input, eps=1e-6, atol=1e-4)
print(test)

x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, requires_grad=True)
out = linear(x, w, b)
print(out.grad_fn.__class__.__name__)
out.sum().backward()
gx, gw, gb = x.grad.clone(), w.grad.clone(), b.grad.clone()
x.grad = w.grad = b.grad = None
F.linear(x, w, b).sum().backward()
print(torch.allclose(gx, x.grad), torch.allclose(gw, w.grad), torch.allclose(gb, b.grad))
