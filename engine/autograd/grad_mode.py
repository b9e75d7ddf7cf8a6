"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``."""

from __future__ import annotations

import functools


class _GradState:
    __slots__ = ("enabled", "anomaly")

    def __init__(self) -> None:
        self.enabled = True
        self.anomaly = False


state = _GradState()


def is_grad_enabled() -> bool:
    return state.enabled


class _GradModeContext:
    """Base of the grad-mode switches: a context manager that is also a decorator."""

    _target: bool = True

    def __new__(cls, *args, **kwargs):
        # ``@torch.no_grad`` without parentheses decorates the function directly, as in PyTorch
        if cls in (no_grad, enable_grad) and len(args) == 1 and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._prev = state.enabled
        state.enabled = self._target
        return None

    def __exit__(self, *exc) -> bool:
        state.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):  # noqa: N801 - PyTorch's name
    """Disable graph recording inside the block (as ``torch.no_grad``)."""

    _target = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Enable graph recording inside the block (as ``torch.enable_grad``)."""

    _target = True


class inference_mode(no_grad):  # noqa: N801
    """Treated as ``no_grad``: the engine has no separate inference tensors."""

    def __init__(self, mode: bool = True) -> None:
        self._target = not mode


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Set grad mode; takes effect at once, as in PyTorch, and restores on exit."""

    def __init__(self, mode: bool) -> None:
        self._prev = state.enabled
        self._target = bool(mode)
        state.enabled = self._target

    def __enter__(self):
        return None

    def __call__(self, fn):
        state.enabled = self._prev
        mode = self._target

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper
