"""``engine.nn``: PyTorch's module API (``Module``, ``Parameter``, layers, losses) over the
engine's tensors. ``functional``, ``init`` and ``utils`` are submodules as in PyTorch."""

from . import functional, init, utils
from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleList, Sequential
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Flatten", "Identity", "L1Loss",
    "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList", "NLLLoss", "Parameter", "ReLU",
    "Sequential", "Sigmoid", "Softmax", "Tanh", "functional", "init", "utils",
]
