"""``backward``, ``autograd.grad`` and the stepwise backward the debugger drives."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..events import BACKWARD_FINISHED, BACKWARD_STARTED, hub
from ..ops.dispatch import edge
from .backward import backward_steps as _steps


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


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


def _check_create_graph(create_graph) -> None:
    if create_graph:
        raise NotImplementedError(
            "create_graph=True (higher-order gradients) is not supported by gradstep's engine yet"
        )


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
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (``torch.autograd.backward``)."""
    _check_create_graph(create_graph)
    if grad_tensors is None:
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        return _backward_into(tensors, grad_tensors, retain_graph, inputs)
    # deque(maxlen=0) drains the generator in C: no Python loop around the steps.
    deque(backward_steps(tensors, grad_tensors, retain_graph=retain_graph), maxlen=0)


def _backward_into(tensors, grad_tensors, retain_graph, inputs):
    """``backward(inputs=...)``: gradients accumulate only into the listed tensors."""
    grads = grad(tensors, inputs, grad_tensors, retain_graph=retain_graph, allow_unused=True)
    Tensor = _tensor_cls()
    for t, g in zip(inputs, grads):
        if g is None:
            continue
        if t._grad is None:
            t._grad = Tensor._wrap(g._data.copy())
        else:
            np.add(t._grad._data, g._data, out=t._grad._data, casting="unsafe")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned rather than accumulated."""
    _check_create_graph(create_graph)
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
    gen = _steps(roots, grads, retain_graph=bool(retain_graph), capture=capture, accumulate=False)
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        captured = stop.value
    result = []
    for t, g in zip(inputs_list, captured):
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
        else:
            result.append(Tensor._wrap(np.array(g, dtype=t._data.dtype, copy=True)))
    return tuple(result)
