"""Higher-order gradients with torch.autograd.grad(create_graph=True).

Source: PyTorch documentation, "torch.autograd.grad" (create_graph: "allowing to compute higher
order derivative products"), as used in the forum answers on second derivatives
https://pytorch.org/docs/stable/generated/torch.autograd.grad.html

Written for the gradstep corpus.
Edits vs the source:
- The documentation describes the arguments; the program is the standard worked example:
  y = x**3 at x = 3 (dy/dx = 27, d2y/dx2 = 18), then a gradient penalty-style
  grad-of-grad-norm, with the grad_fn of the first derivative printed.
"""
import torch

x = torch.tensor(3., requires_grad=True)
y = x ** 3
dy_dx, = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)
d2y_dx2, = torch.autograd.grad(dy_dx, x)
print(d2y_dx2)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -0.5, 2.0], requires_grad=True)
out = (w * x.sin()).sum()
g, = torch.autograd.grad(out, x, create_graph=True)
print(g)
penalty = g.pow(2).sum()
penalty.backward()
print(x.grad, w.grad)

z = torch.tensor(2.0, requires_grad=True)
f = z.tanh()
first, = torch.autograd.grad(f, z, create_graph=True)
second, = torch.autograd.grad(first, z, create_graph=True)
third, = torch.autograd.grad(second, z)
print(first.item(), second.item(), third.item())
