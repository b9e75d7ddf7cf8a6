"""Dive into Deep Learning (classic edition), 5.4 Custom Layers -- CenteredLayer and MyLinear.

Source: d2l.ai classic "Custom Layers" (PyTorch tab)
https://classic.d2l.ai/chapter_deep-learning-computation/custom-layer.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- torch.manual_seed(0) added (unseeded in the book); displayed values printed.
"""
import torch
import torch.nn.functional as F
from torch import nn


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.FloatTensor([1, 2, 3, 4, 5])))

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())

Y = net(torch.rand(4, 8))
print(Y.mean())


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))

net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))
