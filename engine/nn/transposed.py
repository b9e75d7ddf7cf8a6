"""``conv_transpose1d``/``conv_transpose2d`` (re-exported by ``engine.nn.functional``) and the
output padding a ``ConvTranspose`` module's ``output_size`` asks for. One op row with PyTorch's
node, ``ConvolutionBackward0`` (PyTorch runs both directions through one ``convolution``), whose
kernels are the convolution's own with the roles swapped (``engine/ops/layers.py``)."""

from __future__ import annotations

from ..dtypes import scalar_type_name
from ..ops import api
from ..ops.dispatch import apply
from ..ops.table import OPS
from ..tensor import Size
from . import functional as F


def _check(input, weight, nd, name):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {F._shape_text(input.shape)}")
    dtypes = (input._data.dtype, weight._data.dtype)
    if dtypes[0] != dtypes[1]:
        raise RuntimeError("expected scalar type {} but found {}".format(
            *map(scalar_type_name, dtypes)))


def conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                   nd: int, name: str | None = None):
    """The transposed convolution shared by the 1-D and 2-D forms, checked as PyTorch checks."""
    name = name or f"conv_transpose{nd}d"
    _check(input, weight, nd, name)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    stride, padding, dilation, output_padding = (
        F._ntuple(v, nd) for v in (stride, padding, dilation, output_padding))
    shape_text = F._shape_text
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # PyTorch checks a 1-D one as a 2-D one of height 1 (output padding 0, stride 1...)
        lift = (lambda v, fill: v) if nd == 2 else (lambda v, fill: (fill, *v))
        parts = [f"{what}_{n}: {v}" for what, vals, fill in (
            ("output_padding", output_padding, 0), ("stride", stride, 1),
            ("dilation", dilation, 1)) for n, v in zip(("height", "width"), lift(vals, fill))]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(parts))
    unbatched = input.ndim == nd + 1
    shape = ((1,) if unbatched else ()) + tuple(input.shape)
    if weight.shape[0] % groups:
        # PyTorch's text, double brackets included
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{shape_text(weight.shape)}] instead")
    if shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {shape_text(weight.shape)}, expected "
            f"input{shape_text(shape)} to have {weight.shape[0]} channels, but got "
            f"{shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
        raise RuntimeError(
            f"Given transposed=1, weight of size {shape_text(weight.shape)}, expected bias to "
            f"be 1-dimensional with {weight.shape[1] * groups} elements, but got bias of size "
            f"{shape_text(bias.shape)} instead")
    out_sizes = [(n - 1) * s - 2 * p + d * (k - 1) + op + 1 for n, s, p, d, k, op in zip(
        shape[2:], stride, padding, dilation, weight.shape[2:], output_padding)]
    if any(o <= 0 for o in out_sizes):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, shape[2:]))}). Calculated "
            f"output size per channel: ({' x '.join(map(str, out_sizes))}). Output size is too "
            "small")
    x = api.unsqueeze(input, 0) if unbatched else input
    out = apply(OPS["convolution_transpose"], x, weight, bias, stride=stride,
                padding=padding, output_padding=output_padding, dilation=dilation,
                groups=groups)
    return api.squeeze(out, 0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """1-D transposed convolution over (N, C, L) or (C, L) input (``ConvolutionBackward0``)."""
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """2-D transposed convolution over (N, C, H, W) or (C, H, W) input
    (``ConvolutionBackward0``)."""
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 2)


def output_padding(input, output_size, stride, padding, kernel_size, nd, dilation, default,
                   module_name):
    """The output padding that gives ``output_size`` (PyTorch's ``_output_padding``)."""
    if output_size is None:
        return default
    output_size = list(output_size)
    non_spatial = 2 if input.ndim == nd + 2 else 1
    if len(output_size) == non_spatial + nd:
        output_size = output_size[non_spatial:]
    if len(output_size) != nd:
        raise ValueError(
            f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must have {nd} or "
            f"{non_spatial + nd} elements (got {len(output_size)})")
    min_sizes = [(input.shape[d + non_spatial] - 1) * stride[d] - 2 * padding[d]
                 + dilation[d] * (kernel_size[d] - 1) + 1 for d in range(nd)]
    max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride)]
    for size, lo, hi in zip(output_size, min_sizes, max_sizes):
        if size < lo or size > hi:
            raise ValueError(
                f"requested an output size of {output_size}, but valid sizes range from "
                f"{min_sizes} to {max_sizes} (for an input of {Size(input.shape[2:])})")
    return tuple(o - m for o, m in zip(output_size, min_sizes))
