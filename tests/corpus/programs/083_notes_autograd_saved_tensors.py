"""Autograd mechanics -- saved tensors (_saved_self, _saved_result) and the version counter
behind in-place correctness checks.

Source: PyTorch documentation, "Autograd mechanics" (Saved tensors; In-place correctness checks)
https://pytorch.org/docs/stable/notes/autograd.html

Written for the gradstep corpus, following the notes' examples.
Edits vs the source:
- torch.manual_seed(0) added; the in-place error caught and printed.
"""
import torch

torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))  # True
print(x is y.grad_fn._saved_self)  # True

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False

a = torch.randn(3, requires_grad=True)
b = a.exp()
print(b._version)
b.add_(1)
print(b._version)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
