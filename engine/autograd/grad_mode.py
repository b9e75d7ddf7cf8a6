"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Mirrors ``torch/autograd/grad_mode.py`` and ``torch/utils/_contextlib.py``: each switch is a
context manager and a decorator (with or without parentheses for ``no_grad``, ``enable_grad``
and ``inference_mode``); a decorated generator function runs each resumption inside the mode;
``set_grad_enabled(mode)`` takes effect at once when called as a function.
``inference_mode`` disables grad (``inference_mode(False)`` enables it, as PyTorch's C++ guard
does); the engine has no separate inference tensors.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings


class _GradState:
    __slots__ = ("enabled", "anomaly", "inference")

    def __init__(self) -> None:
        self.enabled = True
        self.anomaly = False
        self.inference = False


state = _GradState()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


def _set_enabled(mode) -> None:
    state.enabled = bool(mode)


def _wrap_generator(ctx_factory, func):
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context


def context_decorator(ctx_factory, func):
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or all "
            "methods should have the context manager applied; additionally, decorating a class "
            "at definition-site will prevent use of the identifier as a conventional type.  To "
            "specify which methods to decorate, decorate each of them individually."
        )
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """A context manager that is also a decorator (``torch.utils._contextlib``)."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )

            def func(*args, **kwargs):
                return orig_func(*args, **kwargs)
        else:
            func = orig_func
        return context_decorator(self.clone, func)

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        raise NotImplementedError

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Usable as ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            # ``object.__new__``: what ``super().__new__`` finds, without its lookup (a
            # ``with no_grad():`` per optimizer step)
            return object.__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable graph recording inside the block (as ``torch.no_grad``)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        state.enabled = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Enable graph recording inside the block (as ``torch.enable_grad``)."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; takes effect at once, as in PyTorch, and restores on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = mode
        _set_enabled(mode)

    def __call__(self, orig_func):
        _set_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _set_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _set_enabled(self.prev)

    def __str__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def __repr__(self) -> str:
        return str(self)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Grad off inside the block (``inference_mode(False)``: grad on), as PyTorch's
    ``InferenceMode`` guard sets it; ``is_inference_mode_enabled()`` reports the mode."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.inference)
        state.enabled = not self.mode
        state.inference = bool(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        state.enabled, state.inference = self._prev

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)
