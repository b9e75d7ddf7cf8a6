"""Calling a module with hooks, as ``torch.nn.Module._call_impl`` does: the global and the
module's forward pre-hooks (``with_kwargs``), the full backward hooks around the inputs and
outputs (``BackwardHook``), the forward hooks (``with_kwargs``, ``always_call``, run even when
forward raises) and the old non-full backward hooks on the output's ``grad_fn``. Also the hooks
common to all modules (``torch.nn.modules.module.register_module_*_hook``)."""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from ..tensor import Tensor
from .hooks import BackwardHook, RemovableHandle

__all__ = [
    "register_module_backward_hook", "register_module_forward_hook",
    "register_module_forward_pre_hook", "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_state = {"is_full_backward_hook": None}  # torch's _global_is_full_backward_hook

_MIXED = ("Cannot use both regular backward hooks and full backward hooks as a global Module "
          "hook. Please use only one of them.")


def has_global_hooks() -> bool:
    return bool(_global_backward_pre_hooks or _global_backward_hooks
                or _global_forward_hooks or _global_forward_pre_hooks)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook for every module, run before the modules' own."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook for every module, run before the modules' own."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _register_global_backward(hook, full: bool) -> RemovableHandle:
    if _global_state["is_full_backward_hook"] is (not full):
        raise RuntimeError(_MIXED)
    _global_state["is_full_backward_hook"] = full
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """The deprecated non-full backward hook for every module."""
    return _register_global_backward(hook, full=False)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook for every module, run before the modules' own."""
    return _register_global_backward(hook, full=True)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A backward pre-hook for every module, run before the modules' own."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def _hooks(module, name: str) -> dict:
    # a module unpickled from an older state may lack a dict: PyTorch's __setstate__ adds it
    return module.__dict__.get(name) or {}


def backward_hooks(module):
    """``Module._get_backward_hooks``: (full hooks, non-full hooks), the global ones first."""
    full, non_full = [], []
    own = module.__dict__.get("_is_full_backward_hook")
    glob = _global_state["is_full_backward_hook"]
    if glob is True:
        full += _global_backward_hooks.values()
    if own is True:
        full += _hooks(module, "_backward_hooks").values()
    if glob is False:
        non_full += _global_backward_hooks.values()
    if own is False:
        non_full += _hooks(module, "_backward_hooks").values()
    return full, non_full


def call_with_hooks(module, args, kwargs):
    """Run ``module.forward(*args, **kwargs)`` with every hook that applies."""
    forward_hooks = _hooks(module, "_forward_hooks")
    with_kwargs = _hooks(module, "_forward_hooks_with_kwargs")
    always = _hooks(module, "_forward_hooks_always_called")
    result = None
    called_always = set()
    try:
        full_hooks, non_full_hooks = [], []
        backward_pre_hooks = [*_global_backward_pre_hooks.values(),
                              *_hooks(module, "_backward_pre_hooks").values()]
        if _hooks(module, "_backward_hooks") or _global_backward_hooks:
            full_hooks, non_full_hooks = backward_hooks(module)
        pre_with_kwargs = _hooks(module, "_forward_pre_hooks_with_kwargs")
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *_hooks(module, "_forward_pre_hooks").items()):
            if hook_id in pre_with_kwargs:
                args_kwargs = hook(module, args, kwargs)
                if args_kwargs is not None:
                    if isinstance(args_kwargs, tuple) and len(args_kwargs) == 2:
                        args, kwargs = args_kwargs
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {args_kwargs}.")
            else:
                args_result = hook(module, args)
                if args_result is not None:
                    args = args_result if isinstance(args_result, tuple) else (args_result,)
        bw_hook = None
        if full_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(module, full_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *forward_hooks.items()):
            if hook_id in always or hook_id in _global_forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                hook_result = hook(module, args, kwargs, result)
            else:
                hook_result = hook(module, args, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = bw_hook.setup_output_hook(result)
        if non_full_hooks:
            _register_non_full(module, args, result, non_full_hooks)
        return result
    except Exception:
        for scope, hooks, marks in (
                ("global module", _global_forward_hooks, _global_forward_hooks_always_called),
                ("module", forward_hooks, always)):
            for hook_id, hook in tuple(hooks.items()):
                if hook_id not in marks or hook_id in called_always:
                    continue
                try:
                    if scope == "module" and hook_id in with_kwargs:
                        hook_result = hook(module, args, kwargs, result)
                    else:
                        hook_result = hook(module, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn(f"{scope} forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised "
                                  f"in forward: {e}", stacklevel=3)
        raise


def _register_non_full(module, args, result, hooks) -> None:
    """The deprecated hooks go on the grad_fn of the output's first tensor as its post-hooks,
    called as ``hook(module, grad_input, grad_output)`` of that one node; torch's warnings say
    when that node is not the whole module."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is not None:
        for hook in hooks:
            grad_fn.register_hook(_WrappedHook(hook, module))
        _maybe_warn_non_full_backward_hook(args, result, grad_fn)


class _WrappedHook:
    """torch's ``_WrappedHook``: ``hook(module, *args)`` with the module held weakly, named as
    the hook (node hook errors quote the hook's ``__name__``)."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _tensors_or_warn(value, does: str, misses: str):
    """``value`` as a tuple of Tensors, or None after torch's warning that it is not one."""
    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, tuple) and all(isinstance(v, Tensor) for v in value):
        return value
    warnings.warn(
        f"Using non-full backward hooks on a Module that does not {does} a single Tensor or a "
        "tuple of Tensors is deprecated and will be removed in future versions. This hook will "
        f"be missing some of the {misses}. Please use register_full_backward_hook to get the "
        "documented behavior.",
        FutureWarning, stacklevel=3)
    return None


def _maybe_warn_non_full_backward_hook(inputs, result, grad_fn) -> None:
    """torch's ``Module._maybe_warn_non_full_backward_hook``: a FutureWarning when the node the
    hooks sit on does not see all of the module's outputs, or not all of its inputs."""
    result = _tensors_or_warn(result, "return", "grad_output")
    if result is None:
        return
    inputs = _tensors_or_warn(inputs, "take as input", "grad_input")
    if inputs is None:
        return
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn(
            "Using a non-full backward hook when outputs are nested in python data structure "
            "is deprecated and will be removed in future versions. This hook will be missing "
            "some grad_output.",
            FutureWarning, stacklevel=2)
    elif len(out_grad_fn) > 1:
        warnings.warn(
            "Using a non-full backward hook when outputs are generated by different autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            "missing some grad_output. Please use register_full_backward_hook to get the "
            "documented behavior.",
            FutureWarning, stacklevel=2)
    else:
        # the grad_output part of the hook is most likely right: check the grad_input part
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn(
                "Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input. Please use register_full_backward_hook to get the "
                "documented behavior.",
                FutureWarning, stacklevel=2)
