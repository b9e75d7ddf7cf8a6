"""torch.optim -- "How to adjust learning rate": chaining ExponentialLR and MultiStepLR, and
LambdaLR.

Source: PyTorch documentation, "torch.optim" (How to adjust learning rate)
https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate

Written for the gradstep corpus, following the documentation's example.
Edits vs the source:
- `model`, `dataset` and `loss_fn` made concrete (nn.Linear(2, 1), 4 synthetic samples,
  MSELoss), seed 0; 20 epochs -> 8 with lr printed each epoch.
- A LambdaLR run (from the LambdaLR page's lambda epoch: 0.95 ** epoch) appended.
"""
import torch
from torch import nn
from torch.optim import SGD
from torch.optim.lr_scheduler import ExponentialLR, MultiStepLR, LambdaLR

torch.manual_seed(0)
model = [nn.Parameter(torch.randn(2, 2, requires_grad=True))]
optimizer = SGD(model, 0.1)
scheduler1 = ExponentialLR(optimizer, gamma=0.9)
scheduler2 = MultiStepLR(optimizer, milestones=[3, 6], gamma=0.1)
dataset = [(torch.randn(2), torch.randn(2)) for _ in range(4)]
loss_fn = nn.MSELoss()

for epoch in range(8):
    for input, target in dataset:
        optimizer.zero_grad()
        output = model[0] @ input
        loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
    scheduler1.step()
    scheduler2.step()
    print(epoch, optimizer.param_groups[0]['lr'])

print(model[0])

optimizer = SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
lambda1 = lambda epoch: 0.95 ** epoch
scheduler = LambdaLR(optimizer, lr_lambda=lambda1)
for epoch in range(5):
    optimizer.step()
    scheduler.step()
    print(scheduler.get_last_lr())
