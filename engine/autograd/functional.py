"""``backward``, ``autograd.grad`` and the stepwise backward the debugger drives."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..events import BACKWARD_FINISHED, BACKWARD_STARTED, hub
from ..ops.dispatch import edge
from .backward import backward_steps as _steps


_Tensor = None


def _tensor_cls():
    """The Tensor class (a circular import), imported once and then cached, as backward.py does."""
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    return _Tensor


def _as_list(x):
    if x is None:
        return None
    Tensor = _tensor_cls()
    if isinstance(x, Tensor):
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
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t._data.dtype.kind != "f":
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{t.dtype}"
                )
            garr = np.ones(t._data.shape, dtype=t._data.dtype)
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
    """Roots and their gradients as Tensors, for a backward pass that records itself."""
    Tensor = _tensor_cls()
    roots, grads = _make_roots(tensors, grad_tensors)
    given = grad_tensors or ()
    out = []
    for i, g in enumerate(grads):
        supplied = given[i] if i < len(given) else None
        usable = isinstance(supplied, Tensor) and supplied._data.dtype == g.dtype
        out.append(supplied if usable else Tensor._wrap(g))
    return roots, out


def _run_graph(tensors, grad_tensors, capture=None, accumulate=True):
    from .higher_order import backward_graph_steps

    roots, grads = _graph_roots(tensors, grad_tensors)
    return _drain(_with_events(roots, backward_graph_steps(roots, grads, capture=capture,
                                                           accumulate=accumulate)))


def _drain(gen):
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


def backward_steps(tensors, grad_tensors=None, retain_graph=None, inputs=None):
    """The backward pass as a generator of ``BackwardStep``s; exhausting it is ``backward()``."""
    tensors = _as_list(tensors)
    grad_tensors = _as_list(grad_tensors)
    roots, grads = _make_roots(tensors, grad_tensors)
    return _with_events(roots, _steps(roots, grads, retain_graph=bool(retain_graph)), tensors)


def _with_events(roots, gen, tensors=()):
    if hub.active:
        # ``tensors`` (what backward() was called on) lets the training plot read the loss
        hub.emit(BACKWARD_STARTED, roots=roots, tensors=tuple(tensors))
    result = yield from gen
    if hub.active:
        hub.emit(BACKWARD_FINISHED, roots=roots)
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             grad_variables=None):
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (``autograd.backward``)."""
    if grad_tensors is None:
        grad_tensors = grad_variables
    if create_graph and inputs is None:
        _run_graph(_as_list(tensors), _as_list(grad_tensors))
        return
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        return _backward_into(tensors, grad_tensors, retain_graph, inputs, create_graph)
    # deque(maxlen=0) drains the generator in C: no Python loop around the steps.
    deque(backward_steps(tensors, grad_tensors, retain_graph=retain_graph), maxlen=0)


def _backward_into(tensors, grad_tensors, retain_graph, inputs, create_graph=False):
    """``backward(inputs=...)``: gradients accumulate only into the listed tensors."""
    grads, first_versions = _grad(tensors, inputs, grad_tensors, retain_graph=retain_graph,
                                  allow_unused=True, create_graph=create_graph)
    Tensor = _tensor_cls()
    for t, g, first in zip(inputs, grads, first_versions):
        if g is None:
            continue
        if create_graph:  # the gradient keeps its graph; sums are out of place
            t._grad = g if t._grad is None else t._grad + g
            continue
        if t._grad is None:
            t._grad = Tensor._wrap(g._data.copy())
            t._grad._version.value = first  # as AccumulateGrad's (stolen or copied)
        else:
            np.add(t._grad._data, g._data, out=t._grad._data, casting="unsafe")
            t._grad._version.value += 1


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned rather than accumulated."""
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                 materialize_grads)[0]


def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
          allow_unused=None, materialize_grads=False):
    """``grad``'s results, and per input the version a first ``.grad`` made of it would have."""
    Tensor = _tensor_cls()
    outputs = _as_list(outputs)
    inputs_list = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs)
    if not inputs_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for i, t in enumerate(inputs_list):
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots, grads = _make_roots(outputs, grad_outputs)
    capture = {}
    for slot, t in enumerate(inputs_list):
        capture[edge(t)] = slot
    if create_graph:
        captured = _run_graph(outputs, grad_outputs, capture=capture, accumulate=False)
    else:
        captured = _drain(_steps(roots, grads, retain_graph=bool(retain_graph), capture=capture,
                                 accumulate=False))
    versions = getattr(captured, "versions", None) or [0] * len(captured)
    gv = getattr(captured, "gv", None)
    first_versions = [
        gv.first_grad_version(g, t._data) if gv is not None and g is not None else 1
        for t, g in zip(inputs_list, captured)]
    result = []
    for t, g, version in zip(inputs_list, captured, versions):
        if g is None:
            if materialize_grads:
                result.append(Tensor._wrap(np.zeros_like(t._data)))
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
    return tuple(result), first_versions
