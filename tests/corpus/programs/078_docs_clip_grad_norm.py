"""torch.nn.utils.clip_grad_norm_ and clip_grad_value_ in a training step.

Source: PyTorch documentation, "torch.nn.utils.clip_grad_norm_"
https://pytorch.org/docs/stable/generated/torch.nn.utils.clip_grad_norm_.html

Written for the gradstep corpus: the usual training step from the page's description (backward,
clip the total norm, step), printing the total norm it returns.
Edits vs the source:
- The page documents the function only; the model (nn.Linear(10, 1)), data (seed 0) and the
  max_norm=1.0 are this program's.
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 10) * 10, torch.randn(32, 1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    print(step, loss.item(), total_norm)
    print(torch.cat([p.grad.flatten() for p in model.parameters()]).norm())
    optimizer.step()

optimizer.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
print(model.weight.grad, model.bias.grad)
