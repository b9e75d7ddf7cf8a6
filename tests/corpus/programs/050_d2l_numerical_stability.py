"""Dive into Deep Learning (classic edition), 4.8 Numerical Stability and Initialization --
vanishing sigmoid gradients and exploding matrix products.

Source: d2l.ai classic "Numerical Stability and Initialization" (PyTorch tab)
https://classic.d2l.ai/chapter_multilayer-perceptrons/numerical-stability-and-init.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- The d2l.plot of sigmoid and its gradient removed; a few values of both printed.
- torch.manual_seed(0) added (unseeded in the book).
"""
import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(y.detach()[::20])
print(x.grad[::20])

torch.manual_seed(0)
M = torch.normal(0, 1, size=(4, 4))
print('a single matrix \n', M)
for i in range(100):
    M = torch.mm(M, torch.normal(0, 1, size=(4, 4)))

print('after multiplying 100 matrices\n', M)
