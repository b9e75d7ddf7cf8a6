"""torch.optim -- per-parameter options (param groups with their own lr) and
optimizer.state_dict() after momentum steps.

Source: PyTorch documentation, "torch.optim" (How to use an optimizer: Constructing it,
Per-parameter options, Taking an optimization step)
https://pytorch.org/docs/stable/optim.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- The docs' `model.base` / `model.classifier` made concrete: a small module with those two
  children; data torch.randn(8, 4), seed 0; three steps printed.
"""
import torch
from torch import nn, optim


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(4, 3)
        self.classifier = nn.Linear(3, 2)

    def forward(self, x):
        return self.classifier(torch.relu(self.base(x)))


torch.manual_seed(0)
model = Model()
optimizer = optim.SGD([
    {'params': model.base.parameters(), 'lr': 1e-2},
    {'params': model.classifier.parameters()}
], lr=1e-3, momentum=0.9)

print([g['lr'] for g in optimizer.param_groups])
print([len(g['params']) for g in optimizer.param_groups])

input, target = torch.randn(8, 4), torch.randint(0, 2, (8,))
loss_fn = nn.CrossEntropyLoss()
for step in range(3):
    optimizer.zero_grad()
    output = model(input)
    loss = loss_fn(output, target)
    loss.backward()
    optimizer.step()
    print(step, loss.item())

sd = optimizer.state_dict()
print(sorted(sd.keys()))
print(sd['param_groups'][0]['lr'], sd['param_groups'][1]['lr'], sd['param_groups'][0]['params'])
print(sorted(sd['state'].keys()), list(sd['state'][0].keys()))
print(model.base.bias)
