"""torch.nn.MSELoss and L1Loss -- the documentation's examples, with the three reductions.

Source: PyTorch documentation, "MSELoss" and "L1Loss"
https://pytorch.org/docs/stable/generated/torch.nn.MSELoss.html
https://pytorch.org/docs/stable/generated/torch.nn.L1Loss.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) added; losses and gradients printed; the reduction variants added
  from the pages' parameter descriptions.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
loss = nn.MSELoss()
input = torch.randn(3, 5, requires_grad=True)
target = torch.randn(3, 5)
output = loss(input, target)
output.backward()
print(output)
print(input.grad)

print(nn.MSELoss(reduction='sum')(input, target))
print(nn.MSELoss(reduction='none')(input, target).shape)

loss = nn.L1Loss()
input = torch.randn(3, 5, requires_grad=True)
target = torch.randn(3, 5)
output = loss(input, target)
output.backward()
print(output)
print(input.grad)
print(output.grad_fn)
