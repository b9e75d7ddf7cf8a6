"""Save the gradient of the intermediate tensor -- a custom Exp Function whose backward
stores the incoming gradient.

Source: PyTorch Forums, "Save the gradient of the intermediate tensor"
https://discuss.pytorch.org/t/save-the-gradient-of-the-intermediate-tensor/190094

Written for the gradstep corpus, following the post's program.
Edits vs the source:
- `gc.collect()` / `torch.cuda.empty_cache()` removed (no GPU; no effect on the output).
- The post calls `Exp()` before `exp.apply`; kept as `Exp.apply` only (instantiating a Function
  is deprecated).
"""
import torch

a = []


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = torch.exp(i)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        a.append(grad_output.detach())
        return grad_output * result


x = torch.tensor([3., 4.], requires_grad=True)
y = Exp.apply(x)
y.sum().backward()
print(a)
print(x.grad)
z = Exp.apply(x * 2)
(z * torch.tensor([1., 10.])).sum().backward()
print(a)
print(x.grad)
