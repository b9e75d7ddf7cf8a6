"""``backward``, ``autograd.grad`` and the stepwise backward the debugger drives (re-exported by
``engine.autograd.functional``, which older code imports them from)."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..events import BACKWARD_FINISHED, BACKWARD_STARTED, hub
from ..ops.dispatch import edge
from .backward import backward_steps as _steps
from .grad_mode import state as grad_state
from .scheduler import tensor_cls as _tensor_cls


def _as_list(x):
    if x is None:
        return None
    Tensor = _tensor_cls()
    # the class first: isinstance takes a slow path through Tensor's metaclass
    if x.__class__ is Tensor or isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_roots(tensors, grad_tensors, *, what="output"):
    Tensor = _tensor_cls()
    roots, grads = [], []
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t._data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{t.dtype}"
                )
            shape = t._data.shape
            # a 0-d one (a loss) made directly: np.ones is a Python function
            garr = np.array(1, dtype=t._data.dtype) if not shape else np.ones(
                shape, dtype=t._data.dtype)
        else:
            garr = g._data if isinstance(g, Tensor) else np.asarray(g, dtype=t._data.dtype)
            if garr.shape != t._data.shape:
                shp = lambda s: f"torch.Size([{', '.join(map(str, s))}])"  # noqa: E731
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {shp(garr.shape)} and "
                    f"{what}[{i}] has a shape of {shp(t._data.shape)}."
                )
            if garr.dtype != t._data.dtype:
                garr = garr.astype(t._data.dtype)
        roots.append(edge(t))
        grads.append(garr)
    return roots, grads


def _graph_roots(tensors, grad_tensors):
    """Roots and their gradients as Tensors, for a backward pass that records itself (a given
    gradient of another dtype is cast as PyTorch's engine casts it: recorded, ToCopyBackward0)."""
    Tensor = _tensor_cls()
    roots, grads = _make_roots(tensors, grad_tensors)
    given = grad_tensors or ()
    out = []
    for i, g in enumerate(grads):
        supplied = given[i] if i < len(given) else None
        if not isinstance(supplied, Tensor):
            out.append(Tensor._wrap(g))
        elif supplied._data.dtype == g.dtype:
            out.append(supplied)
        else:
            prev, grad_state.enabled = grad_state.enabled, True
            try:
                out.append(supplied.to(g.dtype))
            finally:
                grad_state.enabled = prev
    return roots, out


def _run(tensors, grad_tensors, *, create_graph, retain_graph, capture=None, inputs=None):
    """Run one whole pass (``inputs``: ``backward(inputs=...)``'s), returning what it captured.
    A create_graph pass is announced on the hub (started/finished) as a plain ``backward()`` is;
    a plain ``grad()`` or ``backward(inputs=...)`` pass emits its steps only."""
    if create_graph:
        from .higher_order import backward_graph_steps

        roots, grads = _graph_roots(tensors, grad_tensors)
        targets = None if inputs is None else _targets(inputs)
        gen = _with_events(roots, backward_graph_steps(roots, grads, retain_graph, capture,
                                                       targets, steps=False))
    else:
        roots, grads = _make_roots(tensors, grad_tensors)
        targets = None if inputs is None else _targets(inputs)
        gen = _steps(roots, grads, retain_graph=retain_graph, capture=capture, targets=targets,
                     steps=False)
    return _drain(gen)


def _drain(gen):
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


def backward_steps(tensors, grad_tensors=None, retain_graph=None, inputs=None, steps=True):
    """The backward pass as a generator of ``BackwardStep``s; exhausting it is ``backward()``
    (which passes ``steps=False``: the pass then yields nothing and runs in one go)."""
    tensors = _as_list(tensors)
    grad_tensors = _as_list(grad_tensors)
    roots, grads = _make_roots(tensors, grad_tensors)
    targets = None if inputs is None else _targets(_as_list(inputs))
    return _with_events(roots, _steps(roots, grads, retain_graph=bool(retain_graph),
                                      targets=targets, steps=steps), tensors)


def _with_events(roots, gen, tensors=()):
    if hub.active:
        # ``tensors`` (what backward() was called on) lets the training plot read the loss
        hub.emit(BACKWARD_STARTED, roots=roots, tensors=tuple(tensors))
    result = yield from gen
    if hub.active:
        hub.emit(BACKWARD_FINISHED, roots=roots)
    return result


def _targets(inputs):
    """``backward(inputs=...)``'s nodes: a leaf's accumulator, a non-leaf's grad_fn (which, as
    PyTorch does, from now on retains the tensor's gradient)."""
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    targets = set()
    for t in inputs:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if t.grad_fn is not None:
            t.retain_grad()
        targets.add(edge(t)[0])
    return targets


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             grad_variables=None):
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (``autograd.backward``)."""
    if grad_tensors is None:
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if create_graph or inputs is not None:
        _run(_as_list(tensors), _as_list(grad_tensors), create_graph=create_graph,
             retain_graph=retain_graph, inputs=inputs)
        return
    # deque(maxlen=0) drains the generator in C; without steps it runs the pass in one go.
    deque(backward_steps(tensors, grad_tensors, retain_graph=retain_graph, steps=False), maxlen=0)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned rather than accumulated."""
    Tensor = _tensor_cls()
    outputs = _as_list(outputs)
    inputs_list = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs)
    if not inputs_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for t in inputs_list:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    capture = {}
    for slot, t in enumerate(inputs_list):
        capture.setdefault(edge(t), []).append(slot)
    captured = _run(outputs, grad_outputs, create_graph=create_graph,
                    retain_graph=bool(retain_graph), capture=capture)
    result = []
    for t, g, version in zip(inputs_list, captured, captured.versions):
        if g is None:
            if materialize_grads:
                z = Tensor._wrap(np.zeros_like(t._data))
                z._requires_grad = bool(create_graph)  # as torch.zeros_like(requires_grad=...)
                result.append(z)
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {len(result)} appears to not have been "
                    "used in the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif create_graph:
            result.append(g if g._data.dtype == t._data.dtype else g.to(t._data.dtype))
        else:
            # the gradient PyTorch's engine hands back, with its version counter (1 when two
            # gradients were summed in place into it)
            r = Tensor._wrap(np.array(g, dtype=t._data.dtype, copy=True))
            r._version.value = version
            result.append(r)
    return tuple(result)
