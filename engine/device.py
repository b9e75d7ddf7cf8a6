"""Devices as PyTorch's CPU-only build answers: ``torch.device`` objects, the default device,
and what placing a tensor on another device raises.

``device`` parses and compares as ``torch.device`` does (``device(type='cuda', index=1)``;
equal only to another device with the same type and index). Every tensor lives on the CPU:
``check(dev)`` lets the CPU through and raises CPU torch's error for any other device (CUDA:
``AssertionError: Torch not compiled with CUDA enabled``). ``parse_to`` reads the arguments of
``Tensor.to`` / ``Module.to`` with torch's three signatures; factories' ``device=`` and
``set_default_device`` go through ``check`` too (``checked_factories``).
"""

from __future__ import annotations

import functools
import re

# c10/core/Device.cpp's list, in its order (the error message spells it)
DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_CUDA = "Torch not compiled with CUDA enabled"


class _DeviceMeta(type):
    def __repr__(cls) -> str:
        return "<class 'torch.device'>"


class device(metaclass=_DeviceMeta):
    """``torch.device``: a device type and an optional index."""

    __slots__ = ("_type", "_index")

    def __init__(self, type=None, index=None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError(_invalid_device_args(type, index))
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            # a bare index means the current accelerator's device, and there is none
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            raise TypeError(_invalid_device_args(type, index))
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(
                "device(): argument 'index' (position 2) must be int, not "
                f"{_builtin_name(index)}"
            )
        match = _DEVICE_STRING.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        kind, text_index = match.groups()
        if kind not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                f"string: {kind}"
            )
        if text_index is not None:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            index = int(text_index)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self._type, self._index = kind, index

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self):
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return NotImplemented if not isinstance(other, str) else False
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type,) if self._index is None else (self._type, self._index))

    def __enter__(self):
        _DEFAULT_STACK.append(_default[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc) -> None:
        _default[0] = _DEFAULT_STACK.pop()


def _builtin_name(value) -> str:
    return type(value).__name__


def _invalid_device_args(*args) -> str:
    got = ", ".join(_builtin_name(a) for a in args if a is not None)
    return f"device() received an invalid combination of arguments - got ({got}), but expected " \
           "one of:"


CPU = device("cpu")
_default = [CPU]  # the default device (a list, so that ``with device(...)`` can swap it)
_DEFAULT_STACK: list = []


def as_device(dev) -> device:
    """``dev`` (a device, a string such as "cuda:0", or an index) as a ``device``."""
    return dev if isinstance(dev, device) else device(dev)


def check(dev) -> device:
    """Raise what CPU-only PyTorch raises when asked to put a tensor on ``dev``; return the CPU
    device otherwise (``None`` means the default device)."""
    dev = _default[0] if dev is None else as_device(dev)
    kind = dev._type
    if kind == "cpu":
        return CPU
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    if kind == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    if kind == "meta":
        raise NotImplementedError("gradstep: meta tensors are not supported")
    raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


def check_default(dev) -> None:
    """``check`` for a factory's ``device=`` argument (``None``: the default device)."""
    if dev is not None or _default[0] is not CPU:
        check(dev)


def set_default_device(dev) -> None:
    """``torch.set_default_device``: accepted for any valid device (as torch does); factories
    then raise for a device other than the CPU."""
    _default[0] = CPU if dev is None else as_device(dev)


def get_default_device() -> device:
    """``torch.get_default_device`` (CPU torch fails for a CUDA default while it looks up the
    current GPU)."""
    dev = _default[0]
    if dev._type == "cuda":
        raise AssertionError(NO_CUDA)
    return dev


def checked_factories(namespace: dict, names) -> None:
    """Wrap the factory functions ``names`` of ``namespace`` so that their ``device=`` keyword
    (and the default device) is checked as PyTorch checks it; the factories themselves only
    ever make CPU tensors."""
    for name in names:
        fn = namespace[name]

        @functools.wraps(fn)
        def factory(*args, _fn=fn, **kwargs):
            check_default(kwargs.pop("device", None))
            return _fn(*args, **kwargs)

        namespace[name] = factory


def _is_device_like(a) -> bool:
    return isinstance(a, (str, device)) or (isinstance(a, int) and not isinstance(a, bool))


def _to_type_name(a) -> str:
    from .tensor import Tensor

    if isinstance(a, Tensor):
        return "Tensor"
    if type(a).__name__ == "dtype":
        return "torch.dtype"
    if isinstance(a, device):
        return "torch.device"
    return _builtin_name(a)


def _bad_to_args(args, kwargs) -> TypeError:
    got = [_to_type_name(a) for a in args]
    got += [f"{k}={_to_type_name(v)}" for k, v in kwargs.items()]
    return TypeError(
        f"to() received an invalid combination of arguments - got ({', '.join(got)}), but "
        "expected one of:\n" + _TO_SIGNATURES
    )


_TO_SIGNATURES = "".join(
    f" * ({first}bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n"
    for first in ("torch.device device = None, torch.dtype dtype = None, ",
                  "torch.dtype dtype, ", "Tensor tensor, ")
)


_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def parse_to(args, kwargs, check_device: bool = True):
    """Read ``to(...)``'s arguments as ``torch._C._nn._parse_to`` does, with the signatures
    ``to(device=None, dtype=None, non_blocking=False, copy=False)``, ``to(dtype, non_blocking=
    False, copy=False)`` and ``to(tensor, non_blocking=False, copy=False)``.

    Returns ``(device or None, dtype or None, copy)``, having checked that the device can hold
    tensors (``check``, unless not ``check_device``), so ``.to("cuda")`` raises CPU torch's
    AssertionError.
    """
    from .tensor import Tensor

    for k in kwargs:
        if k not in _TO_KEYWORDS:
            raise _bad_to_args(args, kwargs)
    dev = kwargs.get("device")
    dtype = kwargs.get("dtype")
    flags = []
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        if "device" in kwargs or "dtype" in kwargs:
            raise _bad_to_args(args, kwargs)
        other = rest.pop(0)
        dev, dtype = CPU, other.dtype
    elif rest and (rest[0] is None or _is_device_like(rest[0])):
        if "device" in kwargs:
            raise _bad_to_args(args, kwargs)
        dev = rest.pop(0)
        if rest and not isinstance(rest[0], bool) and not _is_device_like(rest[0]) and \
                not isinstance(rest[0], Tensor):
            if "dtype" in kwargs:
                raise _bad_to_args(args, kwargs)
            dtype = rest.pop(0)
    elif rest and not isinstance(rest[0], bool):
        if "dtype" in kwargs or "device" in kwargs:
            raise _bad_to_args(args, kwargs)
        dtype = rest.pop(0)
    for a in rest:
        if not isinstance(a, bool):
            raise _bad_to_args(args, kwargs)
        flags.append(a)
    if len(flags) > 2:
        raise _bad_to_args(args, kwargs)
    copy = flags[1] if len(flags) > 1 else bool(kwargs.get("copy", False))
    if dtype is not None and type(dtype).__name__ != "dtype" and not isinstance(dtype, type) \
            and not hasattr(dtype, "kind"):
        raise _bad_to_args(args, kwargs)
    if dev is not None:
        dev = as_device(dev)
        if check_device:
            dev = check(dev)
    return dev, dtype, copy


def cuda_of(dev=None):
    """What ``Tensor.cuda(device)`` / ``Module.cuda(device)`` raise on a CPU-only build."""
    if dev is not None:
        as_device(dev)  # a bare index raises "Cannot access accelerator device ..."
    raise AssertionError(NO_CUDA)
