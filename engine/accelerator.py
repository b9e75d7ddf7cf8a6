"""``torch.accelerator`` on PyTorch 2.13's CPU-only build: no accelerator."""

from __future__ import annotations

from .device import NO_ACCELERATOR


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """None: the CPU is not an accelerator."""
    return None


def _none(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


current_device_index = current_device_idx = set_device_index = set_device_idx = _none
synchronize = _none
