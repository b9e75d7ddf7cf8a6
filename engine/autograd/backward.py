"""The plain backward pass: gradients as numpy arrays, a generator of ``BackwardStep``s (one per
executed node, in PyTorch's order) that the debugger pauses between; ``backward()`` exhausts it.

The scheduling (order, hooks, retain_grad, captures, ``inputs=``, freeing) is ``scheduler.py``'s,
shared with the ``create_graph=True`` pass; this module is its arithmetic on arrays:
``ArrayArithmetic`` adds gradients, writes ``.grad`` as PyTorch's AccumulateGrad does and keeps
the version counters PyTorch's gradient tensors would have.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..events import GRAD_ACCUMULATED, hub
from .scheduler import BackwardStep, execute, tensor_cls

__all__ = ["ArrayArithmetic", "BackwardStep", "GradVersions", "backward_steps"]


def backward_steps(roots, root_grads, retain_graph: bool = False, capture=None,
                   accumulate: bool = True, targets=None,
                   steps: bool = True) -> Iterator[BackwardStep]:
    """Run the backward pass from ``roots`` (pairs of node and output_nr) one node at a time.

    ``capture`` maps ``(node, output_nr)`` to the slots the gradient arriving there is stored in
    (for ``autograd.grad``), ``targets`` are the nodes ``backward(inputs=...)`` must reach: either
    runs only what leads to them. With ``accumulate=False`` leaves' ``.grad`` is left alone.
    Returns (as the generator's value) the list of captured gradients (with their ``versions``).
    ``steps`` False: a pass to drain, yielding nothing (``scheduler.execute``).
    """
    arith = (ArrayArithmetic if accumulate else _ArraysNoWrite)(root_grads)
    return execute(roots, root_grads, arith, retain_graph, capture, targets, steps)


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


class ArrayArithmetic(GradVersions):
    """The scheduler's arithmetic on numpy arrays (see ``scheduler.py``): one per pass, holding
    the pass's ``GradVersions`` (``add``, ``share`` and ``version`` are its own)."""

    __slots__ = ()

    traced = False
    grad_mode = False  # the plain pass records nothing
    apply = None  # arrays go through ``node.apply``

    def accumulate(self, leaf, g):
        """AccumulateGrad on arrays (the leaf's hooks already ran): ``g`` into ``leaf.grad``,
        stolen or copied as PyTorch would (a first ``.grad`` gets PyTorch's version), else added
        in place; returns the write for the step record."""
        # ``leaf._grad``, not the ``grad`` property: an accumulator's variable is a leaf, whose
        # property reads and writes ``_grad`` directly once its checks pass
        grad = leaf._grad if leaf.grad_fn is None else leaf.grad
        if grad is None:
            data = leaf._data
            dt = data.dtype
            # a copy in g's own layout (``np.array(g)`` is that copy when the dtype is the
            # leaf's already, without the keyword arguments' parsing)
            copy = (np.array(g) if g.__class__ is _ndarray and g.dtype is dt
                    else np.array(g, dtype=dt, copy=True))
            new = (_wrap or _bind_wrap())(copy)
            v = self.first_grad_version(g, data)
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

    @staticmethod
    def to_hook(g):
        return (_Tensor or _tensor_cls())._wrap(g)

    @staticmethod
    def from_hook(result):
        return result._data

    @staticmethod
    def retain(t, g) -> None:
        # PyTorch's retain_grad hook: a clone the first time, then ``grad + new`` out of place (a
        # new tensor each time, version 0)
        Tensor = _Tensor or _tensor_cls()
        if t._grad is None:
            t.grad = Tensor._wrap(np.array(g, dtype=t._data.dtype, copy=True))
        else:
            t.grad = Tensor._wrap((t._grad._data + g).astype(t._data.dtype, copy=False))


class _ArraysNoWrite(ArrayArithmetic):
    """``backward_steps(..., accumulate=False)``: accumulators run, ``.grad`` is left alone."""

    __slots__ = ()

    @staticmethod
    def accumulate(leaf, g):
        return ()


_Tensor = None
_wrap = None  # Tensor._wrap
_ndarray = np.ndarray


def _tensor_cls():
    global _Tensor
    _Tensor = tensor_cls()
    return _Tensor


def _bind_wrap():
    global _wrap
    _wrap = _tensor_cls()._wrap
    return _wrap
