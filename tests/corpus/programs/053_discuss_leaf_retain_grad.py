"""A mini-tutorial on leaf tensors, .grad, retain_grad() and retains_grad (forum answer).

Source: PyTorch Forums, "Loss.grad is constant 1" (a user's mini-tutorial in code)
https://discuss.pytorch.org/t/loss-grad-is-constant-1/130964

Written for the gradstep corpus, following the post's program: the cases of a leaf without
requires_grad, a leaf with requires_grad, and a non-leaf with retain_grad().
Edits vs the source:
- torch.manual_seed(0) added (the post is unseeded).
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(1, 1)
print("#" * 7)
print("Case 1")
print("#" * 7)
x = torch.randn(1, 1)
print(x)
print(x.is_leaf)  # True
print(x.grad)  # None
out = model(x)
loss = out ** 2
loss.backward()
print(loss.grad)  # None
print(x.grad)  # None
print("")
print("*" * 7)
print("Case 2")
print("*" * 7)
y = torch.randn(1, 1, requires_grad=True)
print(y)
print(y.is_leaf)  # True
print(y.grad)  # None
out = model(y)
loss = out ** 2
loss.backward()
print(loss.grad)  # None
print(y.grad)  # a number
print("")
print("*" * 7)
print("Case 3")
print("*" * 7)
z = torch.randn(1, 1, requires_grad=True)
out = model(z)
loss = out ** 2
loss.retain_grad()
print(loss.is_leaf, loss.retains_grad)
print(loss.grad)  # None
loss.backward()
print(loss.grad)  # tensor([[1.]])
print(z.grad)
