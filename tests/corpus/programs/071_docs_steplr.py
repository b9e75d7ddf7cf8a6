"""torch.optim.lr_scheduler.StepLR -- the documentation's schedule (lr 0.05, step_size=30,
gamma=0.1), printed with get_last_lr().

Source: PyTorch documentation, "StepLR"
https://pytorch.org/docs/stable/generated/torch.optim.lr_scheduler.StepLR.html

Written for the gradstep corpus, following the documentation's example.
Edits vs the source:
- train(...) / validate(...) replaced by one SGD step on a small linear model (seed 0) so the
  scheduler follows optimizer.step(); 100 epochs kept; lr printed every 10 epochs.
"""
import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(16, 3), torch.randn(16, 1)

# Assuming optimizer uses lr = 0.05 for all groups
# lr = 0.05     if epoch < 30
# lr = 0.005    if 30 <= epoch < 60
# lr = 0.0005   if 60 <= epoch < 90
# ...
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
for epoch in range(100):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    if epoch % 10 == 9:
        print(epoch, scheduler.get_last_lr(), round(loss.item(), 6))
print(scheduler.state_dict()['last_epoch'])
