"""What flowed in a torch backward pass, seen through node hooks.

A node's post-hook receives ``(grad_inputs, grad_outputs)`` in torch's naming: the gradients it
sent to its inputs (the engine's ``grads_out``, one per ``next_functions`` entry) and the ones it
received for its outputs (the engine's ``grads_in``). The order in which the hooks fire is the
order torch executed the nodes in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .arrays import to_numpy

TOO_LARGE = type("TooLarge", (), {"__repr__": lambda self: "TOO_LARGE"})()
"""Stands for a gradient that flowed but was too large to copy (it is not written either)."""


@dataclass
class ExecutedNode:
    """One node torch ran: its position in the backward and the gradients in and out."""

    index: int
    grads_in: list  # numpy array or None per output of the node
    grads_out: list  # numpy array or None per next_functions entry


@dataclass
class BackwardTrace:
    """The nodes a backward pass executed, by ``id(node)``; ``order`` lists them as they ran."""

    executed: dict = field(default_factory=dict)
    order: list = field(default_factory=list)

    def get(self, fn) -> ExecutedNode | None:
        return self.executed.get(id(fn))


class BackwardHooks:
    """Post-hooks on every node of ``fns`` that fill a :class:`BackwardTrace`.

    Gradients with more than ``max_elements`` elements are not copied (they could not be written
    anyway, and a large model's activations would fill memory): they are recorded as
    :data:`TOO_LARGE`.
    Use as a context manager around the ``backward()`` call; the hooks are removed on exit.
    """

    def __init__(self, fns, max_elements: int | None = None) -> None:
        self.trace = BackwardTrace()
        self.max_elements = max_elements
        self._handles = [fn.register_hook(self._make_hook(fn)) for fn in fns]

    def _make_hook(self, fn):
        def hook(grad_inputs, grad_outputs):
            self.trace.executed[id(fn)] = ExecutedNode(
                len(self.trace.order), self._arrays(grad_outputs), self._arrays(grad_inputs))
            self.trace.order.append(fn)
        return hook

    def _arrays(self, grads) -> list[np.ndarray | None]:
        limit = self.max_elements
        out = []
        for g in grads:
            if g is not None and limit is not None and g.numel() > limit:
                out.append(TOO_LARGE)
            else:
                out.append(None if g is None else to_numpy(g))
        return out

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def __enter__(self) -> "BackwardHooks":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
