"""Module hooks as PyTorch builds them (``torch/utils/hooks.py``): ``RemovableHandle`` and
``BackwardHook``, which puts a ``BackwardHookFunctionBackward`` node around a module's input and
output tensors so that ``register_full_backward_hook`` / ``register_full_backward_pre_hook`` see
the gradients of exactly that module's inputs and outputs.

PyTorch registers a post-hook on each of the two nodes. The node is the identity, so its post-hook
is equivalent to running the same code inside its ``backward`` on what it received (the output
side reads the raw incoming gradients, None where nothing flowed: it does not materialize them;
the input side reads what the module's nodes sent, zeros where nothing flowed, as PyTorch's).
"""

from __future__ import annotations

import os
import sys
import warnings
import weakref
from collections import OrderedDict

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["BackwardHook", "BackwardHookFunction", "RemovableHandle"]

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


class RemovableHandle:
    """What every ``register_*_hook`` returns: ``handle.remove()`` takes the hook off again (and
    its entries in ``extra_dict``, the with_kwargs / always_call marks). Ids are one counter for
    all handles, so hooks of several dicts keep their registration order."""

    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    # copied or pickled with the module, a handle must point at the copy's dicts (weak
    # references alone would keep it on the original's): the dicts travel in the state
    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        # a handle whose dict had gone stays dead (a reference to a dict nothing keeps)
        self.hooks_dict_ref = weakref.ref(state[0] if state[0] is not None else OrderedDict())
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra if d is not None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class BackwardHookFunction(Function):
    """The identity, as a node (``BackwardHookFunctionBackward``) whose backward runs the hook
    ``BackwardHook`` attaches to it (``ctx._module_hook``)."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        hook = ctx.__dict__.get("_module_hook")
        if hook is None:
            return args
        result = hook(args)
        return args if result is None else tuple(result)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the caller of this function point at
    the first frame outside the engine (the user's line that ran ``backward``)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_ENGINE_DIR):
        frame = frame.f_back
        level += 1
    return level


class BackwardHook:
    """One module call's backward hooks: it wraps the call's input and output tensors in a
    ``BackwardHookFunction`` each, keeps the output gradients the output node saw, and calls the
    user's hooks when the input node runs (PyTorch's ``torch.utils.hooks.BackwardHook``)."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _input_hook(self, grad_input):
        if self.grad_outputs is None:
            # the gradient reached the module's inputs without passing through its outputs
            # (double backward, for example): PyTorch calls no hook then
            return None
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)

    def _output_hook(self, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        if self.user_pre_hooks:
            expected_len = len(self.grad_outputs)
            for user_pre_hook in self.user_pre_hooks:
                hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                if hook_grad_outputs is None:
                    continue
                actual_len = len(hook_grad_outputs)
                if actual_len != expected_len:
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {actual_len}, but expected "
                                       f"{expected_len}")
                self.grad_outputs = hook_grad_outputs
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # no input takes a gradient: the input node never runs, so the hooks fire here
            warnings.warn(_NO_INPUT_GRAD_WARNING, stacklevel=user_stacklevel())
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

    def _apply_on_tensors(self, hook, args, materialize: bool):
        """Pass the tensors among ``args`` through one ``BackwardHookFunction`` whose node runs
        ``hook``; returns the new args and the tensors' positions (None when nothing records)."""
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        node = grad_fns[0]
        node._module_hook = hook
        node.materialize_grads = materialize
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors, strict=True):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._input_hook, args, materialize=True)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(self._output_hook, args, materialize=False)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
