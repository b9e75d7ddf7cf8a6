"""``engine.nn``: PyTorch's module API (``Module``, ``Parameter``, layers, losses) over the
engine's tensors. ``functional``, ``init`` and ``utils`` are submodules as in PyTorch."""

from . import functional, init, utils
from .activation import (
    ELU, GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh,
)
from .container import ModuleList, Sequential
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "ELU", "Flatten", "GELU", "Identity",
    "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList", "NLLLoss",
    "Parameter", "ReLU",
    "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
