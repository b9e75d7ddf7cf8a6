"""gradstep's engine: a numpy autograd that behaves like PyTorch 2.x (``import engine as torch``).

Nothing here imports Qt. The pieces: ``tensor`` (the Tensor class), ``ops`` (the op table and
dispatch), ``autograd`` (nodes, the stepwise backward pass, grad modes), ``nn``, ``optim``,
``events`` (what the engine reports to the debugger), ``script`` (the safe interpreter).
"""

from __future__ import annotations

import numpy as _np

from . import autograd

# PyTorch computes log(0) = -inf, 0/0 = nan and overflows silently; numpy would print a
# RuntimeWarning for each. A per-op ``np.errstate`` costs more than a small op itself, so the
# engine sets numpy's floating-point error policy once, on import.
_np.seterr(all="ignore")
from . import random
from .autograd.anomaly import detect_anomaly, set_detect_anomaly
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .creation import (
    Generator,
    arange,
    as_tensor,
    bernoulli,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    is_tensor,
    linspace,
    logspace,
    manual_seed,
    multinomial,
    normal,
    numel,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from .ops import api as _api
from .ops.api import allclose, broadcast_shapes, equal, isclose, positive
from .ops.table import spellings as _spellings

# every ``torch.x`` the op table's rows spell (engine/ops/table.py: ``api=``)
globals().update({_name: getattr(_api, _name) for _name in _spellings("torch.")})
from .legacy_types import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .tensor import Size, Tensor, device
from .tensor_format import set_printoptions
from .torch_version import TorchVersion as _TorchVersion
from .version import __version__ as _release

# tutorials print it: the release the engine twins, spelled as PyTorch's CPU build (version.py)
__version__ = _TorchVersion(_release)


def detach_(input):
    """``torch.detach_(x)``: ``x.detach_()``."""
    return input.detach_()


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def get_default_dtype():
    from . import dtypes as _dtypes

    return _dtypes.from_numpy_dtype(_dtypes.DEFAULT_FLOAT)


def set_default_dtype(d) -> None:
    """``torch.set_default_dtype``: the float dtype factories and type promotion default to."""
    from . import dtypes as _dtypes

    if not isinstance(d, _dtypes.dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtypes.DEFAULT_FLOAT = _dtypes.to_numpy_dtype(d)


def _lazy(name):
    import importlib

    return importlib.import_module(f".{name}", __name__)


def __getattr__(name):
    # nn and optim are imported on first use, keeping ``import engine`` light.
    if name in ("nn", "optim", "script"):
        module = _lazy(name)
        globals()[name] = module
        return module
    if name == "cuda":
        from . import _cuda

        return _cuda
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


# devices as PyTorch's CPU-only build answers them (engine/device.py, _cuda.py, backends/)
from . import _cuda as cuda
from . import (
    accelerator,
    backends,
    distributions,
    linalg,
    utils,
)
from .autograd.grad_mode import is_inference_mode_enabled
from .device import get_default_device, set_default_device
from .threads import (
    are_deterministic_algorithms_enabled,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_num_interop_threads,
    set_num_threads,
    use_deterministic_algorithms,
)
