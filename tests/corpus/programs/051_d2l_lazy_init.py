"""Dive into Deep Learning, 6.4 Lazy Initialization -- nn.LazyLinear.

Source: d2l.ai "Lazy Initialization" (PyTorch tab)
https://d2l.ai/chapter_builders-guide/lazy-init.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- torch.manual_seed(0) added; displayed values printed; the d2l.Module apply_init helper
  (a d2l-library method) left out.
"""
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))

print(net[0].weight)

X = torch.rand(2, 20)
net(X)
print(net[0].weight.shape)
