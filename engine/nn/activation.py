"""Activation modules: ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``, ``LeakyReLU``,
``GELU``, ``Softplus``, ``ELU``, ``SiLU``."""

from __future__ import annotations

from . import functional as F
from .module import Module


class ReLU(Module):
    """``max(x, 0)`` elementwise (in place on the input with ``inplace=True``)."""

    _torch_class_name = "torch.nn.modules.activation.ReLU"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """Hyperbolic tangent elementwise."""

    _torch_class_name = "torch.nn.modules.activation.Tanh"

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """Logistic sigmoid elementwise."""

    _torch_class_name = "torch.nn.modules.activation.Sigmoid"

    def forward(self, input):
        return F.sigmoid(input)


class Softmax(Module):
    """Softmax along ``dim``."""

    _torch_class_name = "torch.nn.modules.activation.Softmax"

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log of the softmax along ``dim``."""

    _torch_class_name = "torch.nn.modules.activation.LogSoftmax"

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    _torch_class_name = "torch.nn.modules.activation.LeakyReLU"

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit (``approximate='none'`` or ``'tanh'``)."""

    _torch_class_name = "torch.nn.modules.activation.GELU"

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``."""

    _torch_class_name = "torch.nn.modules.activation.Softplus"

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    _torch_class_name = "torch.nn.modules.activation.ELU"

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    """``x * sigmoid(x)``."""

    _torch_class_name = "torch.nn.modules.activation.SiLU"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""
