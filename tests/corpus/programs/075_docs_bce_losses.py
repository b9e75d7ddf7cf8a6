"""torch.nn.BCELoss and BCEWithLogitsLoss -- the documentation's examples, and that
BCEWithLogitsLoss(x) equals BCELoss(sigmoid(x)).

Source: PyTorch documentation, "BCELoss" and "BCEWithLogitsLoss"
https://pytorch.org/docs/stable/generated/torch.nn.BCELoss.html
https://pytorch.org/docs/stable/generated/torch.nn.BCEWithLogitsLoss.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) added; losses and gradients printed.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
m = nn.Sigmoid()
loss = nn.BCELoss()
input = torch.randn(3, requires_grad=True)
target = torch.empty(3).random_(2)
output = loss(m(input), target)
output.backward()
print(target, output, input.grad)

loss = nn.BCEWithLogitsLoss()
input = torch.randn(3, requires_grad=True)
target = torch.empty(3).random_(2)
output = loss(input, target)
output.backward()
print(output, input.grad)
print(nn.BCELoss()(torch.sigmoid(input), target))

target = torch.ones([10, 64], dtype=torch.float32)  # 64 classes, batch size = 10
output = torch.full([10, 64], 1.5)  # A prediction (logit)
pos_weight = torch.ones([64])  # All weights are equal to 1
criterion = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
print(criterion(output, target))  # -log(sigmoid(1.5))
