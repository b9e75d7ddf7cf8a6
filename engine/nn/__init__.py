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
from .attention import MultiheadAttention
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .dropout import Dropout
from .flatten import Flatten
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyLinear
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    TripletMarginLoss,
)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .parameter import Parameter, UninitializedParameter
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU",
    "Identity", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList",
    "NLLLoss", "Parameter", "ReLU",
    "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
__all__ += ["AdaptiveAvgPool2d", "AvgPool2d", "Conv1d", "Conv2d", "MaxPool2d"]
__all__ += ["BatchNorm1d", "BatchNorm2d", "Embedding", "LayerNorm"]
__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
__all__ += ["MultiheadAttention"]
__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
            "TransformerEncoderLayer"]
__all__ += ["LazyConv1d", "LazyConv2d", "LazyLinear", "UninitializedParameter"]
__all__ += ["ModuleDict", "ParameterDict", "ParameterList"]
__all__ += ["ConvTranspose1d", "ConvTranspose2d", "HuberLoss", "KLDivLoss", "SmoothL1Loss"]
__all__ += ["CosineEmbeddingLoss", "GaussianNLLLoss", "MarginRankingLoss", "TripletMarginLoss"]
__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d"]
