"""The one backward scheduler: which node runs when, in PyTorch's order, for every backward pass.

PyTorch's engine counts, for every node reachable from the roots, how many gradients will flow into
it; a node becomes ready when all of them have arrived (and been summed), and among ready nodes the
one created last runs first (accumulators before everything). ``execute`` does that once for both
passes, parameterised by an *arithmetic*: how gradients are added, handed to hooks, written into
``.grad`` and pushed through a node. ``backward.ArrayArithmetic`` works on plain numpy arrays (the
debugger's fast pass); ``higher_order.TracedArithmetic`` on Tensors that record their own graph
(``create_graph=True``). Everything else -- tensor and node pre-hooks, retain_grad writes, what
``autograd.grad`` captures, the ``inputs=`` restriction, freeing saved values, the step records and
their events -- is written here, once.

An arithmetic has: ``traced`` (gradients are Tensors), ``grad_mode`` (grad mode while nodes run),
``apply(fn, grads)`` (only read when traced; arrays go through ``fn.apply``), ``add(prev, g)``,
``share(g)`` (one gradient sent along two edges), ``version(g)`` (the version a captured gradient
has), ``to_hook(g)`` / ``from_hook(result)`` (what a hook receives, what its result becomes),
``retain(t, g)`` (the retain_grad hook) and ``accumulate(leaf, g)`` (AccumulateGrad's write, after
the leaf's hooks; returns the step's leaf writes).

With ``capture`` (``autograd.grad``) or ``targets`` (``backward(inputs=...)``) only what leads to
them runs, as PyTorch's ``exec_info``: a node *executes* when one of its next functions executes or
is captured (or it is a target); a captured node that does not execute only runs its hooks (its
gradient is captured after them); an executed one is captured before them (PyTorch's order).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

import numpy as np

from ..events import BACKWARD_STEP, hub
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


_Tensor = None


def tensor_cls():
    """The Tensor class (a circular import), imported once and then cached: an import statement
    per backward node would cost more than the node."""
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    return _Tensor


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
                if nxt not in root_set and nxt.next_functions:  # (an accumulator has none)
                    push(nxt)
            else:
                deps[nxt] = n + 1
    return deps


def _plan(roots, targets, captured) -> dict:
    """PyTorch's ``exec_info``: ``{node: executes}`` for the nodes that should run at all -- True
    for those whose function runs (a target, or a next function runs or is captured), False for
    captured nodes that only run their hooks. Other nodes are left out (never run)."""
    executes: dict = {}
    for root in roots:
        if root is None or root in executes:
            continue
        executes[root] = root in targets
        stack = [(root, iter(root.next_functions))]
        while stack:
            fn, edges = stack[-1]
            for nxt, _ in edges:
                if nxt is None:
                    continue
                done = executes.get(nxt)
                if done is None:  # first visit: descend
                    executes[nxt] = nxt in targets
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
                if done or nxt in captured:  # a DAG: a node seen before is complete
                    executes[fn] = True
            else:
                stack.pop()
                if stack and (executes[fn] or fn in captured):
                    executes[stack[-1][0]] = True
    return {fn: ex for fn, ex in executes.items() if ex or fn in captured}


class Captured(list):
    """``autograd.grad``'s captured gradients, with the version each would have in PyTorch."""

    __slots__ = ("versions",)


_NOTHING_CAPTURED = Captured()
_NOTHING_CAPTURED.versions = []


def execute(roots, root_grads, arith, retain_graph: bool = False, capture=None,
            targets=None, steps: bool = True) -> Iterator[BackwardStep]:
    """Run the backward pass from ``roots`` (pairs of node and output_nr) one node at a time,
    yielding a ``BackwardStep`` after each executed node.

    ``capture`` maps ``(node, output_nr)`` to the slots where the gradient arriving there is
    stored (``autograd.grad``); ``targets`` are the nodes ``backward(inputs=...)`` must reach.
    Either restricts the pass to what leads to them. Returns (as the generator's value) the
    ``Captured`` gradients. With ``steps`` False (``backward()``, which drains the pass) nothing
    is yielded and a step is made only for the hub's listeners: the whole pass runs in one go.
    """
    deps = _dependencies([fn for fn, _ in roots])
    pending: dict = {}
    for (fn, nr), g in zip(roots, root_grads):
        if fn is None:
            continue
        buf = pending.get(fn)
        if buf is None:
            buf = pending[fn] = [None] * fn.num_outputs
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    plan = plan_edges = None
    if capture or targets:
        plan = _plan([fn for fn, _ in roots], targets or (), {fn for fn, _ in capture or ()})

        def plan_edges(fn, edges):  # gradients go only to nodes that run or are captured
            return [(n, nr) if n in plan else (None, 0) for n, nr in edges]

        captured = Captured([None] * (max(s for slots in capture.values() for s in slots) + 1
                                      if capture else 0))
        captured.versions = [0] * len(captured)
    else:
        captured = _NOTHING_CAPTURED
    # Heap entries carry the node's gradients: ``(-sequence_nr, counter, node, grads)``. A node
    # leaves ``pending`` when its last gradient arrives (a node with one consumer never enters
    # it). The first node a step makes ready is held in ``direct`` rather than pushed: it runs
    # next unless the heap holds an entry that orders before it (what heappop would have chosen).
    # Counters are unique, so entries never compare their nodes.
    pending_pop = pending.pop
    ready = []
    counter = 0
    for fn in list(pending):
        if deps.get(fn, 0) == 0 and (plan is None or fn in plan):
            ready.append((-fn.sequence_nr, counter, fn, pending_pop(fn)))
            counter += 1
    heapq.heapify(ready)
    traced = arith.traced
    apply_traced = arith.apply if traced else None
    add = arith.add
    mode = arith.grad_mode
    index = 0
    prev_enabled = grad_state.enabled
    grad_state.enabled = mode  # plain: the backward pass records nothing
    _new = object.__new__
    heappop, heappush, heapreplace = heapq.heappop, heapq.heappush, heapq.heapreplace
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
            edges = fn.next_functions
            if plan is not None:
                if not plan[fn]:  # captured only: its hooks run, the node itself does not
                    _capture(fn, _hooks_of(fn, grads, arith), capture, captured, arith)
                    continue
                if capture:
                    _capture(fn, grads, capture, captured, arith)  # before its hooks, as PyTorch
                edges = plan_edges(fn, edges)
            hooks = fn.hooks  # the node's own pre- and post-hooks (NodeHooks), run after the
            # tensor pre-hooks and the retain_grad hook, as PyTorch's call_function does
            if fn.__class__ is AccumulateGrad:
                out = ()
                if fn.pre_hooks is not None:
                    grads = _run_hooks(fn.pre_hooks.items(), grads, arith)
                g = grads[0]
                leaf = fn.variable
                if leaf._hooks and g is not None:
                    # a leaf's tensor hooks are its accumulator's pre-hooks
                    g = _run_hooks(((0, leaf._hooks),), grads, arith)[0]
                if hooks is not None and hooks.pre:
                    g = _run_node_prehooks(hooks.pre, (g,), arith)[0]
                leaf_writes = arith.accumulate(leaf, g) if g is not None else ()
                if hooks is not None and hooks.post:
                    _run_node_posthooks(hooks.post, out, (g,), arith)
            else:
                # tensor pre-hooks, then the retain_grad hook
                if fn.pre_hooks is not None:
                    grads = _run_hooks(fn.pre_hooks.items(), grads, arith)
                if fn.retained is not None:
                    _retain(fn, grads, arith)
                if hooks is not None and hooks.pre:
                    grads = _run_node_prehooks(hooks.pre, grads, arith)
                leaf_writes = ()
                out = fn.apply(grads) if not traced else apply_traced(fn, grads)
                if hooks is not None and hooks.post:
                    out = _run_node_posthooks(hooks.post, out, grads, arith)
                if grad_state.anomaly:
                    _check_anomaly(fn, out if not traced else [_data(g) for g in out])
                if len(out) == 2 and out[0] is out[1] and out[0] is not None:
                    arith.share(out[0])  # one gradient sent along two edges (``x + x``)
                i = 0
                for nxt, nr in edges:
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
                            buf[nr] = g if prev is None else add(prev, g)
                        continue
                    # its last gradient: the node is ready (its count is not read again)
                    buf = pending_pop(nxt, None)
                    if buf is None:
                        # the common case, a node with one consumer: its gradients list made
                        # with what arrived
                        if nxt.num_outputs == 1:
                            buf = [g]
                        else:
                            buf = [None] * nxt.num_outputs
                            buf[nr] = g
                    elif g is not None:
                        prev = buf[nr]
                        buf[nr] = g if prev is None else add(prev, g)
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
            index += 1
            if not steps and not hub.active:
                continue  # nobody reads the step
            # ``BackwardStep(index, fn, grads, out, leaf_writes)``, its fields written here
            step = _new(BackwardStep)
            step.index = index - 1
            step.node = fn
            if traced:
                step.grads_in = [_data(g) for g in grads]
                step.grads_out = [_data(g) for g in out]
                step.leaf_writes = [(t, _data(g)) for t, g in leaf_writes]
            else:
                step.grads_in = grads
                step.grads_out = out
                step.leaf_writes = leaf_writes
            if hub.active:
                hub.emit(BACKWARD_STEP, step=step)
            if steps:
                grad_state.enabled = prev_enabled
                yield step
                grad_state.enabled = mode
    finally:
        grad_state.enabled = prev_enabled
    return captured


def _data(g):
    return None if g is None else g._data


def _capture(fn, grads, capture, captured, arith) -> None:
    for nr in range(fn.num_outputs):
        slots = capture.get((fn, nr))
        if slots is not None:
            for slot in slots:
                captured[slot] = grads[nr]
                captured.versions[slot] = arith.version(grads[nr])


def _hooks_of(fn, grads, arith):
    """The gradients after a node's tensor pre-hooks (a leaf's hooks for an accumulator) and its
    retain_grad hook, for a node that is only captured."""
    if fn.pre_hooks is not None:
        grads = _run_hooks(fn.pre_hooks.items(), grads, arith)
    if fn.__class__ is AccumulateGrad:
        if fn.variable._hooks:
            grads = _run_hooks(((0, fn.variable._hooks),), grads, arith)
    elif fn.retained is not None:
        _retain(fn, grads, arith)
    return grads


def _run_hooks(hooks_by_output, grads, arith):
    """Hooks registered per output (``tensor.register_hook``): each one gets the gradient as a
    Tensor; one returning a value replaces it."""
    grads = list(grads)
    to_hook, from_hook = arith.to_hook, arith.from_hook
    for nr, hooks in hooks_by_output:
        for hook in list(hooks):
            if grads[nr] is None:
                continue
            result = hook(to_hook(grads[nr]))
            if result is not None:
                grads[nr] = from_hook(result)
    return grads


def _run_node_prehooks(hooks, grads, arith):
    """PyTorch's function pre-hooks: each gets the node's incoming gradients as a tuple (None
    where none arrived); a tuple one returns replaces them for the next hook and the node."""
    to_hook = arith.to_hook
    given = tuple(None if g is None else to_hook(g) for g in grads)
    replaced = _call_node_hooks(hooks, (given,))
    if replaced is None:
        return grads
    from_hook = arith.from_hook
    return [None if r is None else from_hook(r) for r in replaced]


def _run_node_posthooks(hooks, out, grads, arith):
    """PyTorch's post-hooks: each gets ``(grad_inputs, grad_outputs)``, what the node sends
    along each edge and what it received; a tuple one returns replaces ``grad_inputs``."""
    to_hook = arith.to_hook
    sent = tuple(None if g is None else to_hook(g) for g in out)
    received = tuple(None if g is None else to_hook(g) for g in grads)
    replaced = _call_node_hooks(hooks, (sent, received))
    if replaced is None:
        return out
    from_hook = arith.from_hook
    return [None if r is None else from_hook(r) for r in replaced]


def _call_node_hooks(hooks, args):
    """torch's ``_call_hooks``: each hook is called with ``args``; a result other than None
    replaces ``args[0]`` once it passes ``check_result``. Returns the final ``args[0]`` when a
    hook replaced it, else None."""
    current = args[0]
    replaced = False
    for hook in list(hooks):
        result = hook(*args)
        if result is None or result is current:
            continue
        _check_hook_result(current, result, hook)
        current = result
        args = (current, *args[1:])
        replaced = True
    return current if replaced else None


def _check_hook_result(prev, result, hook) -> None:
    """torch's ``check_result``: a tuple of as many values, each None or a Tensor of the same
    type and size (a None gradient stays None)."""
    Tensor = tensor_cls()
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{_tp_name(result)}'")
    name = getattr(hook, "__name__", None)
    name = name if isinstance(name, str) else "<unknown>"
    if len(result) != len(prev):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(prev)})")
    for original, value in zip(prev, result):
        if value is None:
            continue
        if original is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if not isinstance(value, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{_tp_name(value)}'")
        was, got = original._data.dtype, value._data.dtype
        if was != got:
            from ..dtypes import tensor_type_name

            raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                               f"{tensor_type_name(was)} got {tensor_type_name(got)})")
        if original._data.shape != value._data.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")


def _tp_name(value) -> str:
    """CPython's ``tp_name`` of a value's type, as torch's messages print it."""
    cls = type(value)
    if cls.__module__ == "numpy" or cls.__module__.startswith("numpy."):
        return f"numpy.{cls.__name__}"
    return cls.__name__


def _retain(fn, grads, arith) -> None:
    """PyTorch's retain_grad hook: ``.grad`` of each live tensor that retains its gradient."""
    for nr, ref in fn.retained.items():
        t = ref()
        g = grads[nr]
        if t is not None and g is not None:
            arith.retain(t, g)


def _check_anomaly(fn, out) -> None:
    for i, g in enumerate(out):
        if g is not None and g.dtype.kind == "f" and np.isnan(g).any():  # NaN only, as PyTorch
            raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")
