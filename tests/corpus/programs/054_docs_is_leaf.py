"""torch.Tensor.is_leaf -- the documentation's examples of leaf and non-leaf tensors.

Source: PyTorch documentation, "torch.Tensor.is_leaf"
https://pytorch.org/docs/stable/generated/torch.Tensor.is_leaf.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- The CUDA examples (`.cuda()`, `device="cuda"`) replaced by their CPU analogues `.float()`
  (a non-leaf made by a differentiable cast) and `torch.rand(10)` (a leaf): no GPU here.
- The comment lines turned into printed is_leaf values.
"""
import torch

a = torch.rand(10, requires_grad=True)
print(a.is_leaf)
# True

b = torch.rand(10, requires_grad=True).double()
print(b.is_leaf)
# False
# b was created by the operation that cast a cpu Tensor into a double Tensor

c = torch.rand(10, requires_grad=True) + 2
print(c.is_leaf)
# False
# c was created by the addition operation

d = torch.rand(10)
print(d.is_leaf)
# True
# d does not require gradients and so has no operation creating it

e = torch.rand(10).double().requires_grad_()
print(e.is_leaf)
# True
# e requires gradients and has no operations creating it

f = torch.rand(10, requires_grad=True)
print(f.is_leaf)
# True

print(c.grad_fn, d.grad_fn, e.grad_fn)
g = a * 2
g.sum().backward()
print(a.grad is not None, g.grad)
