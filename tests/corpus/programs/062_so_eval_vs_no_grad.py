"""Evaluating PyTorch models: with torch.no_grad vs model.eval() -- dropout behaves
differently in train and eval mode; no_grad switches off graph recording.

Source: Stack Overflow, "Evaluating pytorch models: `with torch.no_grad` vs `model.eval()`"
https://stackoverflow.com/questions/55627780/evaluating-pytorch-models-with-torch-no-grad-vs-model-eval

Written for the gradstep corpus, following the answers' demonstration.
Edits vs the source:
- A small model (Linear + Dropout) and seed 0 made concrete for the answers' description.
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(p=0.5))
x = torch.ones(1, 4)

model.train()
print(model.training, model[1].training)
out1 = model(x)
print(out1.requires_grad, (out1 == 0).sum().item() >= 0)

model.eval()
print(model.training, model[1].training)
out2 = model(x)
out3 = model(x)
print(torch.equal(out2, out3), out2.requires_grad)

with torch.no_grad():
    out4 = model(x)
print(out4.requires_grad, out4.grad_fn)
print(torch.equal(out2, out4))
model.train()
print(model.training)
