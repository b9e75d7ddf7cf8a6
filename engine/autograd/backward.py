"""The backward pass as a generator of steps, one per node executed, in PyTorch's order.

PyTorch's engine counts, for every node reachable from the roots, how many gradients will flow into
it; a node becomes ready when all of them have arrived (and been summed), and among ready nodes the
one created last runs first (accumulators before everything). ``backward()`` simply exhausts this
generator; the debugger pauses between its steps.
"""

from __future__ import annotations

import heapq
from typing import Iterator

import numpy as np

from ..events import BACKWARD_STEP, GRAD_ACCUMULATED, hub
from .grad_mode import state as grad_state
from .node import AccumulateGrad


class BackwardStep:
    """One executed node: what it received, what it sent along each edge, and leaf writes."""

    __slots__ = ("index", "node", "grads_in", "grads_out", "leaf_writes")

    def __init__(self, index, node, grads_in, grads_out, leaf_writes) -> None:
        self.index = index
        self.node = node
        self.grads_in = grads_in  # list of arrays (None where nothing arrived), one per output
        self.grads_out = grads_out  # list, one per entry of node.next_functions
        self.leaf_writes = leaf_writes  # list of (tensor, contribution) written into .grad

    def __repr__(self) -> str:
        return f"BackwardStep({self.index}, {self.node.name()})"


def _dependencies(roots) -> dict:
    """How many gradients flow into each node reachable from ``roots``."""
    deps: dict = {}
    seen = set()
    stack = [fn for fn in roots if fn is not None]
    for fn in stack:
        seen.add(fn)
    while stack:
        fn = stack.pop()
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def start_pass(roots, root_grads):
    """What a backward pass starts from: the dependency counts, the root gradients pending at
    their nodes, and the heap of nodes ready to run (with the heap's next tie-breaking counter).
    Shared by the plain pass here and the create_graph pass (``higher_order.py``)."""
    deps = _dependencies([fn for fn, _ in roots])
    pending: dict = {}
    for (fn, nr), g in zip(roots, root_grads):
        if fn is None:
            continue
        buf = pending.get(fn)
        if buf is None:
            buf = pending[fn] = [None] * fn.num_outputs
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    ready = []
    counter = 0
    for fn in pending:
        if deps.get(fn, 0) == 0:
            ready.append((-fn.sequence_nr, counter, fn))
            counter += 1
    heapq.heapify(ready)
    return deps, pending, ready, counter


def backward_steps(
    roots, root_grads, retain_graph: bool = False, capture=None, accumulate: bool = True
) -> Iterator[BackwardStep]:
    """Run the backward pass from ``roots`` (pairs of node and output_nr) one node at a time.

    ``capture`` maps ``(node, output_nr)`` to a slot index: the gradient arriving there is stored in
    ``captured[slot]`` (for ``autograd.grad``); with ``accumulate=False`` leaves' ``.grad`` is left
    alone. Returns (as the generator's value) the list of captured gradients.
    """
    deps, pending, ready, counter = start_pass(roots, root_grads)
    captured = [None] * (len(capture) if capture else 0)
    index = 0
    prev_enabled = grad_state.enabled
    grad_state.enabled = False  # the backward pass itself records nothing
    _new = object.__new__
    heappop, heappush = heapq.heappop, heapq.heappush
    try:
        while ready:
            fn = heappop(ready)[2]
            grads = pending.pop(fn)
            if fn.pre_hooks is not None:
                grads = _run_pre_hooks(fn, grads)
            if capture:
                for nr in range(fn.num_outputs):
                    slot = capture.get((fn, nr))
                    if slot is not None:
                        captured[slot] = grads[nr]
            leaf_writes = ()
            if fn.__class__ is AccumulateGrad:
                out = ()
                if accumulate and grads[0] is not None:
                    leaf_writes = _accumulate(fn.variable, grads[0])
            else:
                if fn.retained is not None:
                    _write_retained(fn, grads)
                out = fn.apply(grads)
                if grad_state.anomaly:
                    _check_anomaly(fn, out)
                i = 0
                for nxt, nr in fn.next_functions:
                    if nxt is None:
                        i += 1
                        continue
                    g = out[i]
                    i += 1
                    buf = pending.get(nxt)
                    if buf is None:
                        buf = pending[nxt] = [None] * nxt.num_outputs
                    if g is not None:
                        prev = buf[nr]
                        buf[nr] = g if prev is None else prev + g
                    left = deps[nxt] - 1
                    deps[nxt] = left
                    if left == 0:
                        heappush(ready, (-nxt.sequence_nr, counter, nxt))
                        counter += 1
                if not retain_graph and (fn.saved or fn.ans is not None):
                    fn.release()
            # ``BackwardStep(index, fn, grads, out, leaf_writes)``, its fields written here
            step = _new(BackwardStep)
            step.index = index
            step.node = fn
            step.grads_in = grads
            step.grads_out = out
            step.leaf_writes = leaf_writes
            index += 1
            if hub.active:
                hub.emit(BACKWARD_STEP, step=step)
            grad_state.enabled = prev_enabled
            yield step
            grad_state.enabled = False
    finally:
        grad_state.enabled = prev_enabled
    return captured


_Tensor = None


def _tensor_cls():
    # Cached: an import statement per backward node would cost more than the node.
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    return _Tensor


def _run_pre_hooks(fn, grads):
    Tensor = _tensor_cls()
    grads = list(grads)
    for nr, hooks in fn.pre_hooks.items():
        if grads[nr] is None:
            continue
        for hook in list(hooks):
            result = hook(Tensor._wrap(grads[nr]))
            if result is not None:
                grads[nr] = result._data
    return grads


def _write_retained(fn, grads) -> None:
    Tensor = _tensor_cls()
    for nr, ref in fn.retained.items():
        t = ref()
        g = grads[nr]
        if t is None or g is None:
            continue
        if t.grad is None:
            t.grad = Tensor._wrap(np.array(g, dtype=t._data.dtype, copy=True))
        else:
            np.add(t.grad._data, g, out=t.grad._data, casting="unsafe")
            t.grad._version.value += 1


def _accumulate(leaf, g):
    """Add ``g`` into ``leaf.grad`` after the leaf's hooks; returns the write for the step record."""
    Tensor = _tensor_cls()
    if leaf._hooks:
        for hook in list(leaf._hooks):
            result = hook(Tensor._wrap(g))
            if result is not None:
                g = result._data
    # ``leaf._grad``, not the ``grad`` property: an accumulator's variable is a leaf, whose
    # property reads and writes ``_grad`` directly once its checks pass
    grad = leaf._grad if leaf.grad_fn is None else leaf.grad
    if grad is None:
        data = leaf._data
        new = Tensor._wrap(np.array(g, dtype=data.dtype, copy=True))
        if new._data.shape == data.shape and leaf.grad_fn is None:
            leaf._grad = new  # what the setter's checks (shape, dtype) would let through
        else:
            leaf.grad = new
    else:
        buf = grad._data
        if buf.shape != leaf._data.shape:
            raise RuntimeError("the accumulated gradient's shape does not match the tensor's")
        np.add(buf, g, out=buf, casting="unsafe")
        grad._version.value += 1
    if hub.active:
        hub.emit(GRAD_ACCUMULATED, tensor=leaf, contribution=g)
    return [(leaf, g)]


def _check_anomaly(fn, out) -> None:
    for i, g in enumerate(out):
        if g is not None and g.dtype.kind == "f" and np.isnan(g).any():  # NaN only, as PyTorch
            raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")
