"""``nn.init``: fill tensors in place (without recording a graph), as PyTorch's own functions do
it: through ``tensor.uniform_`` / ``tensor.normal_`` (``engine.random``), so that after
``manual_seed`` every weight equals PyTorch's."""

from __future__ import annotations

import math

import numpy as np

from .. import random as _random
from ..autograd.grad_mode import no_grad


def _write(tensor, values):
    """Overwrite ``tensor`` in place under no_grad, bumping its version as an in-place op does."""
    with no_grad():
        np.copyto(tensor._data, np.asarray(values), casting="unsafe")
        tensor._version.value += 1
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(tensor.shape[2:])) if tensor.dim() > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill with values drawn from U(a, b)."""
    with no_grad():
        return _random.uniform_(tensor, a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill with values drawn from N(mean, std²)."""
    with no_grad():
        return _random.normal_(tensor, mean, std, generator=generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """PyTorch's rejection sampling. When [a, b] holds more than 0.3 of the mass: ``normal_``,
    then the whole tensor redrawn (``normal_`` on a new tensor) for the elements outside, until
    none is; otherwise uniform proposals on [a, b] accepted when ``log(U) <= log_pdf``."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        import warnings

        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    g = _random._gen(generator)
    arr = tensor._data
    dt = arr.dtype
    n = arr.size
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo, hi = float(dt.type(a)), float(dt.type(b))
            _random.normal_(tensor, mean, std, generator=generator)
            result = _random._iteration_view(arr).reshape(-1).copy()
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = _random.normal(g, n, mean, std, dt)
                result = np.where(mask, fresh, result)
            return _random._write(tensor, result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        f = dt.type

        def log_pdf(c):
            c = (c - f(mean)) / f(std)
            return (c * c) * f(-0.5) - f(log_peak)

        def accept_draw():
            with np.errstate(divide="ignore"):
                return np.log(_random.uniform(g, n, 0.0, 1.0, dt))

        _random.uniform_(tensor, a, b, generator=generator)
        result = _random._iteration_view(arr).reshape(-1).copy()
        pending = accept_draw() > log_pdf(result)
        while pending.any():
            cand = _random.uniform(g, n, a, b, dt)
            result = np.where(pending, cand, result)
            pending = np.where(pending, accept_draw() > log_pdf(cand), pending)
        return _random._write(tensor, result)


def constant_(tensor, val: float):
    """Fill with ``val``."""
    return _write(tensor, np.full(tensor.shape, val))


def eye_(tensor):
    """Fill a 2-D tensor with the identity (ones on the diagonal, zeros elsewhere)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups: int = 1):
    """Fill a 3-, 4- or 5-D convolution weight so that it passes its input through: a one at the
    kernel's centre linking channel d to channel d in each group."""
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    values = np.zeros(sizes)
    centre = tuple(n // 2 for n in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _write(tensor, values)


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """N(0, std²) values, then in each column ``ceil(sparsity * rows)`` of them zeroed, the rows
    chosen by a ``randperm`` of the default generator per column (as PyTorch does)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    normal_(tensor, 0, std, generator)
    values = tensor._data.copy()
    for col in range(cols):
        values[_random.randperm(_random.default_generator, rows)[:num_zeros], col] = 0
    return _write(tensor, values)


def ones_(tensor):
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with zeros."""
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Glorot normal: N(0, std²) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """He uniform: U(-b, b) with b = gain * sqrt(3 / fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """He normal: N(0, std²) with std = gain / sqrt(fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """gain / sqrt(fan), or None (after PyTorch's warning) for a tensor with no elements."""
    if 0 in tensor.shape:
        warnings_zero_element()
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def warnings_zero_element() -> None:
    import warnings

    warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """PyTorch's draws (``normal_`` on a (rows, numel / rows) matrix, transposed when wide), then
    QR with the signs of R's diagonal. numpy's QR (LAPACK) is not PyTorch's, so the values agree
    to rounding, not bit for bit."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    from ..tensor import Tensor

    flat = Tensor._wrap(np.empty((rows, cols), dtype=tensor._data.dtype))
    with no_grad():
        _random.normal_(flat, 0.0, 1.0, generator=generator)
    m = flat._data.T if rows < cols else flat._data
    q, r = np.linalg.qr(m)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q.astype(tensor._data.dtype) * tensor._data.dtype.type(gain))
                  .reshape(tensor.shape))


def reset_weight_and_bias(module, *, bias_without_fan_in: bool) -> None:
    """PyTorch's default for Linear and Conv: kaiming_uniform(a=sqrt(5)) weights, then the bias
    from U(-1/sqrt(fan_in), 1/sqrt(fan_in)). With no fan-in, Linear still draws a (zero-width)
    bias and Conv draws none (``bias_without_fan_in``): each draw moves the random stream."""
    kaiming_uniform_(module.weight, a=math.sqrt(5))
    if module.bias is None:
        return
    fan_in, _ = _calculate_fan_in_and_fan_out(module.weight)
    if fan_in > 0:
        bound = 1 / math.sqrt(fan_in)
    elif bias_without_fan_in:
        bound = 0
    else:
        return
    uniform_(module.bias, -bound, bound)



def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        import warnings

        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated: use ``nn.init.{new_name}``."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
