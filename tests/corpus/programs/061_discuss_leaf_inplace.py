"""Leaf variable was used in an inplace operation -- the error, and the torch.no_grad() fix.

Source: PyTorch Forums, "Leaf variable was used in an inplace operation"
https://discuss.pytorch.org/t/leaf-variable-was-used-in-an-inplace-operation/308

Written for the gradstep corpus, reproducing the thread's situation (updating a weight that
requires grad in place) and the answers' fixes (update under torch.no_grad(), or through .data).
Edits vs the source:
- The thread's 2017 Variable code replaced by the equivalent tensor code; the error messages
  printed instead of the tracebacks. torch.manual_seed(0) added.
"""
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
try:
    w += 1
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    w.zero_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    w[0] = 5.0
except RuntimeError as e:
    print("RuntimeError:", e)

loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print(w, w.is_leaf, w.requires_grad)

w.data -= 0.1 * w.grad
print(w)

y = w * 2
y += 1  # fine: y is not a leaf
print(y.grad_fn)
