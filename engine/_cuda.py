"""``torch.cuda`` on PyTorch's CPU-only build: never available. The queries answer as that build
does (``is_available()`` False, ``device_count()`` 0, memory counters 0, seeding a no-op); what
needs a GPU raises its ``AssertionError: Torch not compiled with CUDA enabled``."""

from __future__ import annotations

from .device import NO_CUDA, as_device


def _not_compiled(*args, **kwargs):
    raise AssertionError(NO_CUDA)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed) -> None:
    """Seeding CUDA without CUDA is silently skipped, as in PyTorch."""


manual_seed_all = manual_seed


def seed() -> None:
    pass


seed_all = seed


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def reset_peak_memory_stats(device=None) -> None:
    pass


current_device = synchronize = get_device_name = get_device_capability = _not_compiled
get_device_properties = current_stream = initial_seed = init = _not_compiled


def set_device(device) -> None:
    # PyTorch's CPU build fails inside torch._C here
    raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")


class device:
    def __init__(self, device) -> None:
        self.idx = -1 if device is None else as_device(device).index

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False
