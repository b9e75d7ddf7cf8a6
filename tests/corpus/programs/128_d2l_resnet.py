"""Dive into Deep Learning, 8.6 Residual Networks (ResNet) -- the Residual block (two 3x3
LazyConv2d + LazyBatchNorm2d, an optional 1x1 convolution on the shortcut, `Y += X`), its output
shapes, and ResNet-18 assembled with add_module and apply(init_cnn), then its layer summary on
a 96x96 input.

Source: d2l-ai/d2l-en, chapter_convolutional-modern/resnet.md (PyTorch tab)
https://d2l.ai/chapter_convolutional-modern/resnet.html
License: CC BY-SA 4.0 (text), MIT-0 (code) (d2l-ai/d2l-en)

Edits vs the source: each is marked "gradstep edit" where it is made.
- `from d2l import torch as d2l` removed: d2l.Classifier becomes nn.Module, and the three d2l
  helpers the chapter uses are defined here as in the book (init_cnn, add_to_class,
  layer_summary); save_hyperparameters() is replaced by plain attributes.
- `torch.manual_seed(0)` added; the values (not only the shapes) of the residual blocks'
  outputs, and one backward through a block, are printed.
- The training on Fashion-MNIST (d2l.Trainer, a download) is left out.
"""
import torch
from torch import nn
from torch.nn import functional as F
# gradstep edit: `from d2l import torch as d2l` removed (see the header)

torch.manual_seed(0)  # gradstep edit: seeded


def init_cnn(module):  # gradstep edit: d2l.init_cnn, as the book defines it
    """Initialize weights for CNNs."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


def add_to_class(Class):  # gradstep edit: d2l.add_to_class, as the book defines it
    """Register functions as methods in created class."""
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper


class Residual(nn.Module):  #@save
    """The Residual block of ResNet models."""
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1,
                                   stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1,
                                       stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
print(blk(X).shape)
print(blk(X)[0, 0], blk)  # gradstep edit: values and the block as it became

blk = Residual(6, use_1x1conv=True, strides=2)
print(blk(X).shape)

# gradstep edit: one backward through the block with the 1x1 shortcut
out = blk(X)
out.sum().backward()
print(out.grad_fn, blk.conv3.weight.grad.view(-1), blk.bn2.weight.grad)


class ResNet(nn.Module):  # gradstep edit: nn.Module (was d2l.Classifier)
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(64, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))


@add_to_class(ResNet)
def block(self, num_residuals, num_channels, first_block=False):
    blk = []
    for i in range(num_residuals):
        if i == 0 and not first_block:
            blk.append(Residual(num_channels, use_1x1conv=True, strides=2))
        else:
            blk.append(Residual(num_channels))
    return nn.Sequential(*blk)


@add_to_class(ResNet)
def __init__(self, arch, lr=0.1, num_classes=10):
    super(ResNet, self).__init__()
    self.lr, self.num_classes = lr, num_classes  # gradstep edit: was save_hyperparameters()
    self.net = nn.Sequential(self.b1())
    for i, b in enumerate(arch):
        self.net.add_module(f'b{i+2}', self.block(*b, first_block=(i==0)))
    self.net.add_module('last', nn.Sequential(
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
        nn.LazyLinear(num_classes)))
    self.net.apply(init_cnn)


@add_to_class(ResNet)  # gradstep edit: d2l.Classifier.layer_summary, as the book defines it
def layer_summary(self, X_shape):
    X = torch.randn(*X_shape)
    for layer in self.net:
        X = layer(X)
        print(layer.__class__.__name__, 'output shape:\t', X.shape)
    return X  # gradstep edit: the output returned, to print it


class ResNet18(ResNet):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__(((2, 64), (2, 128), (2, 256), (2, 512)),
                       lr, num_classes)


model = ResNet18()
print(model.layer_summary((1, 1, 96, 96)))
print(sum(p.numel() for p in model.parameters()), type(model.net.b2[0].bn1).__name__)
