"""Real models for ``gradstep record``'s tests, in plain torch (torchvision cannot be installed
here): ResNet-50 with torchvision's bottleneck blocks ([3, 4, 6, 3], widths 64 to 2048, the
stride on the 3x3 conv) and a small GPT (token and position embeddings, pre-LayerNorm blocks of
causal self-attention and a GELU MLP, a linear head).

This file is also the user's script: the tests copy its text next to a ``__main__`` part and
run it under ``gradstep record``, then train the same model again here, with the same seed, to
know what torch computed (``train(..., seen=callback)``).
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride here, as torchvision's v1.5), 1x1 expand x4, residual add."""

    expansion = 4

    def __init__(self, c_in: int, width: int, stride: int = 1) -> None:
        super().__init__()
        c_out = width * self.expansion
        self.conv1 = nn.Conv2d(c_in, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, c_out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                            nn.BatchNorm2d(c_out))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet50(nn.Module):
    def __init__(self, classes: int = 10, layers=(3, 4, 6, 3)) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        c_in = 64
        for i, (blocks, width) in enumerate(zip(layers, (64, 128, 256, 512))):
            stage = []
            for b in range(blocks):
                stage.append(Bottleneck(c_in, width, stride=2 if (b == 0 and i > 0) else 1))
                c_in = width * Bottleneck.expansion
            setattr(self, f"layer{i + 1}", nn.Sequential(*stage))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int, block: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        att = F.softmax(att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, block: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, block)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int = 40, block: int = 12, dim: int = 32, heads: int = 2,
                 layers: int = 2) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(block, dim)
        self.blocks = nn.Sequential(*(Block(dim, heads, block) for _ in range(layers)))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t))
        return self.head(self.ln_f(self.blocks(x)))


def train(kind: str, iterations: int, seen=None):
    """The training loop the recorder watches; ``seen(model, optimizer, loss)`` after each
    backward, before the step (the tests' own run). Returns the model and the optimizer."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    if kind == "resnet50":
        model = ResNet50()
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        x, y = torch.randn(1, 3, 64, 64), torch.tensor([3])
    else:
        model = GPT()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        data = torch.randint(0, 40, (2, 13))
        x, y = data[:, :-1], data[:, 1:]
    for _ in range(iterations):
        optimizer.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        if seen is not None:
            seen(model, optimizer, loss)
        optimizer.step()
    return model, optimizer
