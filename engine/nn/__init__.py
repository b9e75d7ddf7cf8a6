"""``engine.nn``: PyTorch's module API (``Module``, ``Parameter``, layers, losses) over the
engine's tensors. ``functional``, ``init`` and ``utils`` are submodules as in PyTorch."""

from . import functional, init, utils
from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .container import ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .parameter import Parameter
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU",
    "Identity", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList",
    "NLLLoss", "Parameter", "ReLU",
    "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
__all__ += ["AdaptiveAvgPool2d", "AvgPool2d", "Conv1d", "Conv2d", "MaxPool2d"]
__all__ += ["BatchNorm1d", "BatchNorm2d", "Embedding", "LayerNorm"]
