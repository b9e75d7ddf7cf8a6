"""``Linear`` and ``Identity``."""

from __future__ import annotations

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored, as in PyTorch)."""

    _torch_class_name = "torch.nn.modules.linear.Identity"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``, initialised as PyTorch does.

    Parameters
    ----------
    in_features, out_features : int
        Sizes of each input and output sample.
    bias : bool, default True
        Whether to learn an additive bias.
    dtype : engine dtype, optional
        The parameters' dtype (float32 by default).
    """

    _torch_class_name = "torch.nn.modules.linear.Linear"

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.reset_weight_and_bias(self, bias_without_fan_in=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name MultiheadAttention's ``out_proj`` has in PyTorch."""

    _torch_class_name = "torch.nn.modules.linear.NonDynamicallyQuantizableLinear"
