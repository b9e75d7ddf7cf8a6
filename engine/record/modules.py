"""Which module each autograd node was created in, through forward pre/post hooks.

A torch node does not know its module. While a :class:`ModuleWatcher` is installed, each module's
forward pre-hook notes the autograd sequence number reached, and its forward hook walks back from
the outputs' ``grad_fn`` over the nodes created since then, writing the module's path into each
node's ``metadata["module"]`` (the key the engine's graph model reads). Hooks of inner modules run
first, so a node belongs to the innermost module that made it (``layer1.0.conv1``).
"""

from __future__ import annotations

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
            # Pop down to this module's entry: a forward that raised never reached its post-hook.
            start = None
            while self._starts and start is None:
                owner, seq = self._starts.pop()
                if owner == id(module):
                    start = seq
            if start is not None and start >= 0:
                self._tag(output, start, group)
        return post

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


def _tensors_in(torch, value, depth: int = 0):
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(torch, item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(torch, item, depth + 1)
