"""ResNets built from plain torch layers (no torchvision, no download), for the recorder's tests
and benchmark. ``resnet18()`` has ResNet-18's layers and widths; ``deep_resnet()`` stacks more
basic blocks at small widths, for a graph of thousands of nodes that still runs in moments.
"""

from __future__ import annotations

import torch
from torch import nn


class BasicBlock(nn.Module):
    """Two 3x3 conv-BN layers with a residual add (a 1x1 conv-BN shortcut when shapes change)."""

    def __init__(self, c_in: int, c_out: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                            nn.BatchNorm2d(c_out))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(out + shortcut)


class PlainResNet(nn.Module):
    """conv-BN-ReLU stem, four stages of basic blocks, global average pool, a linear head."""

    def __init__(self, blocks=(2, 2, 2, 2), widths=(64, 128, 256, 512), classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU()
        c_in = widths[0]
        for i, (n, width) in enumerate(zip(blocks, widths)):
            stride = 1 if i == 0 else 2
            layers = []
            for j in range(n):
                layers.append(BasicBlock(c_in, width, stride if j == 0 else 1))
                c_in = width
            setattr(self, f"layer{i + 1}", nn.Sequential(*layers))
        self.fc = nn.Linear(c_in, classes)
        self.n_stages = len(blocks)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        for i in range(self.n_stages):
            x = getattr(self, f"layer{i + 1}")(x)
        x = torch.flatten(x.mean(dim=(2, 3)), 1)
        return self.fc(x)


def resnet18(classes: int = 10) -> PlainResNet:
    """ResNet-18's stages and widths (about 11 million parameters)."""
    return PlainResNet((2, 2, 2, 2), (64, 128, 256, 512), classes)


def deep_resnet(classes: int = 10) -> PlainResNet:
    """64 basic blocks at widths 8-64: ResNet-18's blocks repeated, over a thousand graph nodes."""
    return PlainResNet((16, 16, 16, 16), (8, 16, 32, 64), classes)
