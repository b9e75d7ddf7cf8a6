"""Which module each autograd node was created in, through forward pre/post hooks.

A torch node does not know its module. While a :class:`ModuleWatcher` is installed, each module's
forward pre-hook notes the autograd sequence number reached, and its forward hook walks back from
the outputs' ``grad_fn`` over the nodes created since then, writing the module's path into each
node's ``metadata["module"]`` (the key the engine's graph model reads). Hooks of inner modules run
first, so a node belongs to the innermost module that made it (``layer1.0.conv1``).

:class:`GlobalModuleWatcher` does the same for every module of a process through torch's global
module hooks (``gradstep record`` does not know the user's model): a module with parameters or
buffers whose forward runs outside any other module's is a root, named by a caller's variable
when one holds it, and the modules under it are grouped by their path from it.
"""

from __future__ import annotations

import importlib

from ._torch import require_torch

MODULE_KEY = "module"


class ModuleWatcher:
    """Tag the nodes each submodule of ``model`` creates with the module's path.

    Parameters
    ----------
    model : torch.nn.Module
    prefix : str
        Prepended to every path: ``"model"`` gives ``model.fc1`` (the engine's group names when
        the script binds the module to ``model``).

    Use as a context manager, or call :meth:`remove` when done.
    """

    def __init__(self, model, prefix: str = "") -> None:
        self._torch = require_torch()
        self._starts: list[tuple[int, int]] = []  # (id(module), sequence nr) per open forward
        self._handles = []
        for path, module in model.named_modules():
            group = ".".join(p for p in (prefix, path) if p) or None
            if group is None:
                continue  # the root module's nodes are the model's: left ungrouped, like the engine
            self._handles.append(module.register_forward_pre_hook(self._pre))
            self._handles.append(module.register_forward_hook(self._make_post(group)))

    def _next_sequence_nr(self) -> int:
        # torch has no public "current sequence number": create one throwaway node and read its.
        torch = self._torch
        with torch.enable_grad():
            probe = torch.zeros((), requires_grad=True).neg()
        # No node under inference mode: nothing will be created to tag either.
        return probe.grad_fn._sequence_nr() if probe.grad_fn is not None else -1

    def _pre(self, module, args):
        self._starts.append((id(module), self._next_sequence_nr()))

    def _make_post(self, group: str):
        def post(module, args, output):
            self._finish(module, output, group)
        return post

    def _finish(self, module, output, group: str | None) -> None:
        # Pop down to this module's entry: a forward that raised never reached its post-hook.
        start = None
        while self._starts and start is None:
            owner, seq = self._starts.pop()
            if owner == id(module):
                start = seq
        if group is not None and start is not None and start >= 0:
            self._tag(output, start, group)

    def _tag(self, output, start: int, group: str) -> None:
        torch = self._torch
        stack = [t.grad_fn for t in _tensors_in(torch, output) if t.grad_fn is not None]
        seen = set()
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen or type(fn).__name__ == "AccumulateGrad":
                continue
            seen.add(id(fn))
            if fn._sequence_nr() <= start:
                continue  # made before this module's forward began
            metadata = fn.metadata
            metadata.setdefault(MODULE_KEY, group)  # an inner module's tag wins
            stack.extend(nxt for nxt, _ in fn.next_functions)

    def remove(self) -> None:
        """Remove every hook this watcher installed."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def __enter__(self) -> "ModuleWatcher":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class GlobalModuleWatcher(ModuleWatcher):
    """Tag the nodes every module creates, through torch's global forward hooks.

    A module whose forward starts outside any module's forward (and that is no submodule of a
    root already seen) becomes a root: ``name_of(root)`` gives its name (``"model"``; empty for
    none), and its submodules are grouped as ``model.0``, ``model.encoder.fc1``. The roots'
    own nodes stay ungrouped, as with :class:`ModuleWatcher`.

    Parameters
    ----------
    name_of : callable
        ``name_of(module) -> str``, called once per root, inside its first forward.
    """

    def __init__(self, name_of) -> None:
        self._torch = require_torch()
        self._starts = []
        self._name_of = name_of
        self.roots: list = []  # [(name, module)] in the order their forwards first ran
        self._groups: dict[int, str | None] = {}  # id(module) -> group
        self._modules: dict[int, object] = {}  # keeps the ids above valid
        hooks = importlib.import_module("torch.nn.modules.module")
        self._handles = [hooks.register_module_forward_pre_hook(self._global_pre),
                         hooks.register_module_forward_hook(self._global_post)]

    def _global_pre(self, module, args):
        if id(module) not in self._groups and not self._starts and _has_state(module):
            # Called from outside every module and not part of a model seen: a new model.
            # (A loss module made on the fly, without parameters, is none: it makes no group.)
            self._add_root(module)
        self._pre(module, args)

    def _global_post(self, module, args, output):
        self._finish(module, output, self._groups.get(id(module)))

    def _add_root(self, root) -> None:
        taken = {name for name, _ in self.roots}
        name = self._name_of(root) or ""
        if not name or name in taken:
            base, k = name or "model", 1
            name = base if base not in taken else f"{base}{k + 1}"
            while name in taken:
                k += 1
                name = f"{base}{k}"
        self.roots.append((name, root))
        for path, module in root.named_modules():
            if id(module) not in self._groups:
                self._groups[id(module)] = ".".join(p for p in (name, path) if p) if path \
                    else None
                self._modules[id(module)] = module


def _has_state(module) -> bool:
    return next(iter(module.parameters()), None) is not None or \
        next(iter(module.buffers()), None) is not None


def _tensors_in(torch, value, depth: int = 0):
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(torch, item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(torch, item, depth + 1)
