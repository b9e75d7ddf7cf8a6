"""Difference between detach() and with torch.no_grad() in PyTorch? -- the answer's examples.

Source: Stack Overflow, "Difference between detach() and with torch.nograd() in PyTorch?"
https://stackoverflow.com/questions/56816241/difference-between-detach-and-with-torch-nograd-in-pytorch

Written for the gradstep corpus, following the answer's examples.
Edits vs the source:
- torchviz's make_dot(r) graph drawings replaced by printing the grad_fn chain of r (what the
  drawings show) and x.grad after backward.
"""
import torch

x = torch.ones(2, requires_grad=True)
y = 2 * x
z = 3 + x
r = (y + z).sum()
print(r.grad_fn, r.grad_fn.next_functions)
r.backward()
print(x.grad)

x = torch.ones(2, requires_grad=True)
y = 2 * x
z = 3 + x.detach()
r = (y + z).sum()
print(r.grad_fn.next_functions[0][0].next_functions)
r.backward()
print(x.grad)

x = torch.ones(2, requires_grad=True)
y = 2 * x
z = 3 + x.data
r = (y + z).sum()
r.backward()
print(x.grad)

print(x)
print(x.detach())

x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad)
