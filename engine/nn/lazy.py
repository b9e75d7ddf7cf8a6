"""Lazy modules: ``LazyLinear``, ``LazyConv1d``, ``LazyConv2d``, ``LazyBatchNorm1d``,
``LazyBatchNorm2d``. Their weights (and running statistics) are ``UninitializedParameter``
(``UninitializedBuffer``) until the first call, which reads the input's feature size, makes them
and initialises them as the eager module would (the same draws, at that moment); the module then
becomes its eager class (``Linear``, ``Conv2d``, ``BatchNorm2d``...), as in PyTorch."""

from __future__ import annotations

from .. import creation
from ..dtypes import int64
from .conv import Conv1d, Conv2d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d
from .parameter import UninitializedBuffer, UninitializedParameter, _Uninitialized


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._initialize_hook.remove()
    del module.__dict__["_initialize_hook"]
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """Runs ``initialize_parameters`` before the first forward, then turns the module into
    ``cls_to_become``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.__dict__["_initialize_hook"] = self.register_forward_pre_hook(_infer_parameters)

    def _uninitialized(self, size_name: str, size: int, bias: bool, dtype) -> None:
        self.weight = UninitializedParameter(dtype=dtype)
        setattr(self, size_name, size)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(t, _Uninitialized)
                   for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}")


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dim of its first input."""

    _torch_class_name = "torch.nn.modules.linear.LazyLinear"
    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self._uninitialized("out_features", out_features, bias, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode)
        self._uninitialized("out_channels", out_channels, bias, dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            self.weight.materialize(
                (self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._nd + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]


class LazyConv1d(_LazyConvMixin, Conv1d):
    """``Conv1d`` whose ``in_channels`` is read from its first input."""

    _torch_class_name = "torch.nn.modules.conv.LazyConv1d"
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    """``Conv2d`` whose ``in_channels`` is read from its first input."""

    _torch_class_name = "torch.nn.modules.conv.LazyConv2d"
    cls_to_become = Conv2d


class _LazyNormBase(LazyModuleMixin):
    """Batch norm whose ``num_features`` is dim 1 of its first input: built as a norm of 0
    features without affine parameters or statistics, which are then uninitialised stand-ins
    (``num_batches_tracked`` is a real 0, as PyTorch's)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True) -> None:
        super().__init__(0, eps, momentum, False, False, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            shape = (self.num_features,)
            for name in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(self, name)
                if t is not None:
                    t.materialize(shape)
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` is read from its first input."""

    _torch_class_name = "torch.nn.modules.batchnorm.LazyBatchNorm1d"
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` is read from its first input."""

    _torch_class_name = "torch.nn.modules.batchnorm.LazyBatchNorm2d"
    cls_to_become = BatchNorm2d
