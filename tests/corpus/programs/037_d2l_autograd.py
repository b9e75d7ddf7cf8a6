"""Dive into Deep Learning, 2.5 Automatic Differentiation.

Source: d2l.ai "Automatic Differentiation" (PyTorch tab)
https://d2l.ai/chapter_preliminaries/autograd.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- Notebook cells' displayed values turned into print() calls.
- torch.manual_seed(0) before `a = torch.randn(size=(), requires_grad=True)` (unseeded).
"""
import torch

x = torch.arange(4.0)
print(x)

# Can also create x = torch.arange(4.0, requires_grad=True)
x.requires_grad_(True)
print(x.grad)  # The gradient is None by default

y = 2 * torch.dot(x, x)
print(y)

y.backward()
print(x.grad)
print(x.grad == 4 * x)

x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
print(x.grad)

# Backward for Non-Scalar Variables
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
print(x.grad)

# Detaching Computation
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x

z.sum().backward()
print(x.grad == u)

x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)


# Gradients and Python Control Flow
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
print(a, d, a.grad)
