"""``Conv1d``, ``Conv2d``, ``ConvTranspose1d`` and ``ConvTranspose2d``: PyTorch's convolution
modules (zeros padding mode), initialised as
PyTorch does (``reset_parameters``: kaiming_uniform(a=sqrt(5)) weights, U(-1/sqrt(fan_in), ...)
bias, drawn through ``engine.nn.init`` in PyTorch's order)."""

from __future__ import annotations

from .. import creation
from . import functional as F
from . import init
from . import transposed as transposed_conv
from .module import Module
from .parameter import Parameter

_PADDING_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    _nd = 2
    _transposed = False  # a transposed convolution's weight is (in, out / groups, *kernel)

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None, output_padding=0) -> None:
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        stride = F._ntuple(stride, nd)
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = F._ntuple(padding, nd)
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError(f"padding_mode must be one of {valid_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r} is not implemented by the "
                                      "engine (only 'zeros')")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = F._ntuple(kernel_size, nd)
        self.stride = stride
        self.padding = padding
        self.dilation = F._ntuple(dilation, nd)
        self.transposed = self._transposed
        self.output_padding = F._ntuple(output_padding, nd)
        self.groups = groups
        self.padding_mode = padding_mode
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups))
        self.weight = Parameter(creation.empty((*shape, *self.kernel_size), dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.reset_weight_and_bias(self, bias_without_fan_in=False)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L) input."""

    _torch_class_name = "torch.nn.modules.conv.Conv1d"
    _nd = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W) input."""

    _torch_class_name = "torch.nn.modules.conv.Conv2d"
    _nd = 2

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        # PyTorch's argument order (output_padding, groups, bias, dilation) differs from Conv's
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        output_padding = transposed_conv.output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, self._nd,
            self.dilation, self.output_padding, type(self).__name__)
        return transposed_conv.conv_transpose(input, self.weight, self.bias, self.stride,
                                          self.padding, output_padding, self.groups,
                                          self.dilation, self._nd)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over (N, C_in, L) or (C_in, L) input."""

    _torch_class_name = "torch.nn.modules.conv.ConvTranspose1d"
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over (N, C_in, H, W) or (C_in, H, W) input (DCGAN's
    generator)."""

    _torch_class_name = "torch.nn.modules.conv.ConvTranspose2d"
    _nd = 2
