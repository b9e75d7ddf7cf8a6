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
    stack = [fn for fn in roots if fn is not None]
    # a node other than a root is first reached when it enters ``deps``: no set of seen nodes
    root_set = set(stack)
    get = deps.get
    push = stack.append
    while stack:
        fn = stack.pop()
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            n = get(nxt)
            if n is None:
                deps[nxt] = 1
                if nxt not in root_set:
                    push(nxt)
            else:
                deps[nxt] = n + 1
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
    # What PyTorch's version counters of gradients would read (see ``GradVersions``)
    gv = GradVersions(root_grads)
    if capture:
        captured = _Captured([None] * len(capture))
        captured.versions = [0] * len(captured)
        captured.gv = gv
    else:
        captured = []
    index = 0
    prev_enabled = grad_state.enabled
    grad_state.enabled = False  # the backward pass itself records nothing
    _new = object.__new__
    heappop, heappush, heapreplace = heapq.heappop, heapq.heappush, heapq.heapreplace
    # Heap entries carry the node's gradients: ``(-sequence_nr, counter, node, grads)``. A node
    # leaves ``pending`` when its last gradient arrives (a node with one consumer never enters
    # it). The first node a step makes ready is held in ``direct`` rather than pushed: it runs
    # next unless the heap holds an entry that orders before it (what heappop would have chosen).
    # Counters are unique, so entries never compare their nodes.
    pending_pop = pending.pop
    ready[:] = [(key, c, fn, pending_pop(fn)) for key, c, fn in ready]  # still a heap
    direct = None
    try:
        while ready or direct is not None:
            if direct is None:
                entry = heappop(ready)
            elif ready and ready[0] < direct:
                entry = heapreplace(ready, direct)
                direct = None
            else:
                entry = direct
                direct = None
            fn = entry[2]
            grads = entry[3]
            if fn.pre_hooks is not None:
                grads = _run_pre_hooks(fn, grads)
            if capture:
                for nr in range(fn.num_outputs):
                    slot = capture.get((fn, nr))
                    if slot is not None:
                        captured[slot] = grads[nr]
                        captured.versions[slot] = gv.version(grads[nr])
            leaf_writes = ()
            if fn.__class__ is AccumulateGrad:
                out = ()
                if accumulate and grads[0] is not None:
                    leaf_writes = _accumulate(fn.variable, grads[0], gv)
            else:
                if fn.retained is not None:
                    _write_retained(fn, grads)
                out = fn.apply(grads)
                if grad_state.anomaly:
                    _check_anomaly(fn, out)
                if len(out) == 2 and out[0] is out[1] and out[0] is not None:
                    gv.share(out[0])  # one gradient sent along two edges (``x + x``)
                i = 0
                for nxt, nr in fn.next_functions:
                    if nxt is None:
                        i += 1
                        continue
                    g = out[i]
                    i += 1
                    left = deps[nxt] - 1
                    if left:
                        deps[nxt] = left
                        buf = pending.get(nxt)
                        if buf is None:
                            buf = pending[nxt] = [None] * nxt.num_outputs
                        if g is not None:
                            prev = buf[nr]
                            buf[nr] = g if prev is None else gv.add(prev, g)
                        continue
                    # its last gradient: the node is ready
                    deps[nxt] = 0
                    buf = pending_pop(nxt, None)
                    if buf is None:
                        buf = [None] * nxt.num_outputs
                    if g is not None:
                        prev = buf[nr]
                        buf[nr] = g if prev is None else gv.add(prev, g)
                    item = (-nxt.sequence_nr, counter, nxt, buf)
                    counter += 1
                    if direct is None:
                        direct = item
                    else:
                        heappush(ready, item)
                if not retain_graph and (fn.saved or fn.ans is not None):
                    # ``fn.release()`` inlined (a Node: accumulators took the branch above)
                    fn.saved = None
                    fn.ans = None
                    fn.freed = True
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


class _Captured(list):
    """``autograd.grad``'s captured gradients, with the version PyTorch's tensors would have."""

    __slots__ = ("versions", "gv")


class GradVersions:
    """The version counters PyTorch's gradient tensors would have after a backward pass.

    PyTorch's engine sums two gradients arriving at one input in place when it holds the only
    reference to one of them and its memory is dense (version + 1), out of place otherwise (a new
    tensor, version 0); AccumulateGrad makes ``.grad`` the incoming gradient itself when it may
    steal it (the only reference, laid out as the parameter: then ``.grad`` keeps its version), a
    copy made with ``copy_`` otherwise (version 1). Root gradients are referenced by the caller
    too, and a gradient sent along two edges by the node that made it is shared. Only gradients
    summed in place are remembered (with a reference, so their ids stay theirs); others read 0.
    Cheap when nothing is summed: one object per pass, a few checks per leaf.
    """

    __slots__ = ("roots", "shared", "summed")

    def __init__(self, root_grads=()) -> None:
        self.roots = root_grads  # the caller's arrays (a list, usually of one)
        self.shared = None  # {id: array} sent along two edges
        self.summed = None  # {id: (array, version)} summed in place

    def share(self, a) -> None:
        if self.shared is None:
            self.shared = {}
        self.shared[id(a)] = a

    def _is_shared(self, a) -> bool:
        base = a.base
        for r in self.roots:
            if r is a or (base is not None and r is base):
                return True
        shared = self.shared
        return shared is not None and (id(a) in shared or (base is not None and id(base) in shared))

    def owned(self, a) -> bool:
        """Whether PyTorch would hold the only reference to this gradient (dense memory)."""
        if a.__class__ is not np.ndarray:
            return isinstance(a, np.generic)  # a numpy scalar (0-d math): always a new value
        if self._is_shared(a):
            return False
        flags = a.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            return False
        for n, st in zip(a.shape, a.strides):
            if st == 0 and n > 1:
                return False
        return True

    def version(self, a) -> int:
        summed = self.summed
        if summed is None or a is None:
            return 0
        entry = summed.get(id(a))
        if entry is None and a.__class__ is np.ndarray and a.base is not None:
            entry = summed.get(id(a.base))  # a view shares its base's counter
            if entry is not None and entry[0] is not a.base:
                entry = None
        elif entry is not None and entry[0] is not a:
            entry = None
        return 0 if entry is None else entry[1]

    def add(self, prev, g):
        out = prev + g
        if self.owned(prev):
            v = self.version(prev) + 1
        elif self.owned(g):
            v = self.version(g) + 1
        else:
            return out  # a new tensor: version 0
        if self.summed is None:
            self.summed = {}
        self.summed[id(out)] = (out, v)
        return out

    def first_grad_version(self, g, variable) -> int:
        """The version of ``.grad`` when AccumulateGrad first writes ``g`` into it."""
        if g.__class__ is np.ndarray and g.base is None and g.strides == variable.strides:
            # the common case: a new array (it owns its memory, so it is dense) laid out as the
            # variable (the backward loop already gave it the variable's shape): kept, unless it
            # is the caller's
            for r in self.roots:
                if r is g:
                    return 1
            shared = self.shared
            if shared is not None and id(g) in shared:
                return 1
            return 0 if self.summed is None else self.version(g)
        if not self.owned(g) or not _obeys_layout(g, variable):
            return 1  # copied: ``new_empty_strided(...).copy_(g)``
        return self.version(g)


def _obeys_layout(g, variable) -> bool:
    """PyTorch's ``obeys_layout_contract``: the gradient's strides are the variable's (ignoring
    dimensions of size 1, which must not be broadcast)."""
    if g.shape != variable.shape:
        return False
    gi, vi = g.itemsize, variable.itemsize
    for n, gs, vs in zip(g.shape, g.strides, variable.strides):
        if n != 1:
            if gs // gi != vs // vi:
                return False
        elif gs == 0:
            return False
    return True


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
    # PyTorch's retain_grad hook: a clone the first time, then ``grad + new`` out of place (a new
    # tensor each time, version 0)
    Tensor = _tensor_cls()
    for nr, ref in fn.retained.items():
        t = ref()
        g = grads[nr]
        if t is None or g is None:
            continue
        if t._grad is None:
            t.grad = Tensor._wrap(np.array(g, dtype=t._data.dtype, copy=True))
        else:
            t.grad = Tensor._wrap((t._grad._data + g).astype(t._data.dtype, copy=False))


def _accumulate(leaf, g, gv=None):
    """Add ``g`` into ``leaf.grad`` after the leaf's hooks; returns the write for the step record.
    ``gv`` (a ``GradVersions``) gives a first ``.grad`` PyTorch's version."""
    Tensor = _Tensor or _tensor_cls()
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
        if gv is not None:
            v = gv.first_grad_version(g, data)
            if v:
                new._version.value = v
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
