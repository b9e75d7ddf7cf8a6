"""``torch.autograd.Function``: user-defined ops with their own ``forward`` and ``backward``.

As in PyTorch, the ``ctx`` a Function's ``forward`` receives *is* the node its outputs record:
an instance of a class made once per Function (``MyFnBackward``, a ``BackwardCFunction``), which
is a ``Node`` the one scheduler runs like any other. Its ``apply`` (plain pass, arrays) and
``apply_traced`` (``create_graph=True``, Tensors) call the user's ``backward`` with Tensors; under
create_graph grad mode is on, so the ops ``backward`` uses are recorded and double backward works
when it is written with differentiable ops.

Saved outputs are kept as tensors sharing the output's data and version counter but not its
history (no reference back to the node: the graph stays free of cycles); ``saved_tensors``
unpacks them as PyTorch does, as tensors whose ``grad_fn`` is the node.
"""

from __future__ import annotations

import functools

import numpy as np

from .grad_mode import no_grad
from .grad_mode import state as grad_state
from .node import _FREED_MESSAGE, Node, _reduce_to, _sequence

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


class _SavedTuple(tuple):
    """``ctx.saved_tensors``: a tuple, which also answers the inspector's ``.items()``."""

    def items(self):
        return [(f"saved_tensors[{i}]", t) for i, t in enumerate(self) if t is not None]


class FunctionCtx:
    """What ``ctx`` offers in ``forward`` / ``setup_context``."""

    def save_for_backward(self, *tensors) -> None:
        Tensor = _tensor_cls()
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs) -> None:
        pass


class _FunctionOp:
    """The node's ``op``: what the debugger reads of an op-table row (a name, no table rules)."""

    __slots__ = ("name", "node_name")
    roles = ()
    saves = ""
    vjps = None
    view = False
    group = None
    api = ()
    note = ""
    params = ()
    param_defaults = {}
    int_lists = ()

    def __init__(self, cls) -> None:
        self.name = cls.__name__
        self.node_name = cls.__name__ + "Backward"

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {self.node_name!r})"


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one ``Function.apply`` call. No ``__slots__``: ctx takes attributes."""

    _forward_cls = None

    # -- ctx -------------------------------------------------------------------------------------
    @property
    def saved_tensors(self):
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        saved = self.saved
        if not saved:
            return _SavedTuple(getattr(self, "to_save", None) or ())
        self.check_saved()  # PyTorch's error for a saved tensor modified in place
        outputs = self.__dict__.get("_saved_outputs") or {}
        out = []
        for i, t in enumerate(saved):
            nr = outputs.get(i)
            if nr is not None:  # an output: unpacked with the node as its grad_fn
                u = t.__class__._wrap(t._data)
                u._version = t._version
                u.grad_fn = self
                u._output_nr = nr
                u._requires_grad = True
                t = u
            out.append(t)
        return _SavedTuple(out)

    @property
    def saved_variables(self):
        return self.saved_tensors

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.op.node_name} object at {hex(id(self))}>"

    # -- the backward step -----------------------------------------------------------------------
    def _call_backward(self, grads, wrap, zeros):
        materialize = self.__dict__.get("materialize_grads", True)
        args = []
        for nr, g in enumerate(grads):
            if g is None and materialize:
                shape, dtype = self._out_meta[nr]
                g = zeros(shape, dtype)
            args.append(g if g is None else wrap(g))
        result = self._forward_cls.backward(self, *args)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._arg_is_tensor)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {self.op.node_name} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})")
        Tensor = _tensor_cls()
        out = []
        for i, (r, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(
                        f"function {self.op.node_name} returned a gradient different than None "
                        f"at position {i + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            if r is not None and not isinstance(r, Tensor):
                raise TypeError(
                    f"function {self.op.node_name} returned a gradient that is not a Tensor "
                    f"at position {i + 1}")
            out.append(r)
        return out

    def _check_shape(self, i, g, shape):
        gshape = tuple(g.shape)
        if gshape != tuple(shape):
            try:
                np.broadcast_shapes(gshape, shape)
                ok = np.broadcast_shapes(gshape, shape) == gshape and len(gshape) >= len(shape)
            except ValueError:
                ok = False
            if not ok:
                raise RuntimeError(
                    f"Function {self.op.node_name} returned an invalid gradient at index {i} - "
                    f"got [{', '.join(map(str, gshape))}] but expected shape compatible with "
                    f"[{', '.join(map(str, shape))}]")

    def apply(self, grads):
        """Plain pass: arrays in, arrays out; the user's backward runs on Tensors, recording
        nothing (the scheduler has grad mode off)."""
        Tensor = _tensor_cls()
        res = self._call_backward(grads, Tensor._wrap, np.zeros)
        return self._per_input(res, lambda r, shape, dtype: _reduce_to(
            np.asarray(r._data), shape, dtype))

    def apply_traced(self, grads):
        """create_graph pass: Tensors in, Tensors out; the ops backward uses are recorded."""
        from .higher_order import _reduce_to as reduce_traced

        Tensor = _tensor_cls()
        res = self._call_backward(grads, lambda g: g,
                                  lambda shape, dtype: Tensor._wrap(np.zeros(shape, dtype)))
        return self._per_input(res, reduce_traced)

    def _per_input(self, results, reduce):
        """One gradient per input edge: None where the input takes none, else the user's result
        checked against the input's shape and summed down to it (``reduce``)."""
        out = []
        for i, ((fn, _), r) in enumerate(zip(self.next_functions, results)):
            if fn is None or r is None:
                out.append(None)
                continue
            shape, dtype = self.input_meta[i]
            self._check_shape(i, r, shape)
            out.append(reduce(r, shape, dtype))
        return out


class FunctionMeta(type):
    """Gives each Function subclass its node class, ``<Name>Backward``, as PyTorch does."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = __name__
        backward_cls._op = _FunctionOp(cls)
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


def _is_overridden(cls, name) -> bool:
    return getattr(cls, name) is not getattr(Function, name)


class Function(metaclass=FunctionMeta):
    """Base class for user-defined autograd ops: subclasses write ``forward`` and ``backward`` as
    static methods and are called through ``apply``."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD.")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls is Function:
            raise RuntimeError("Function.apply called on the base class")
        return _apply(cls, args, kwargs)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    """Run ``backward`` without recording (its result cannot be differentiated again)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper


def _edge(t):
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def _apply(cls, args, kwargs):
    Tensor = _tensor_cls()
    ctx = object.__new__(cls._backward_cls)
    # the Node's fields (no Node.__init__: nothing is saved yet)
    ctx.op = cls._backward_cls._op
    ctx.params = None
    ctx.saved = None
    ctx.saved_versions = None
    ctx.ans = None
    ctx.ans_counter = None
    ctx.ans_version = None
    ctx.freed = False
    ctx.sequence_nr = next(_sequence)
    ctx.num_outputs = 1
    ctx.pre_hooks = None
    ctx.hooks = None
    ctx.retained = None
    ctx._metadata = None
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    enabled = grad_state.enabled
    needs = tuple(bool(enabled and t and a.requires_grad) for a, t in zip(args, is_tensor))
    ctx.needs_input_grad = needs
    ctx._arg_is_tensor = is_tensor
    custom_setup = _is_overridden(cls, "setup_context")
    with no_grad():
        if custom_setup:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    record = any(needs)
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    non_diff = {id(t) for t in ctx.__dict__.get("non_differentiable", ())}
    dirty = {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
    inputs = {id(a) for a in tensors}
    wrapped = []
    out_meta = []
    out_tensors = {}  # id of a tensor forward returned (and of its replacement) -> output_nr
    nr = 0
    for o in outputs:
        if not isinstance(o, Tensor):
            wrapped.append(o)
            continue
        given = o
        if id(o) in inputs and id(o) not in dirty:
            # an input returned as it is: a new tensor (sharing its data) carries the history
            o = Tensor._wrap(o._data)
            o._version = given._version
        elif id(o) in dirty and record and o.grad_fn is None and o.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        out_meta.append((o._data.shape, o._data.dtype))
        if record and o._data.dtype.kind in "fc" and id(given) not in non_diff:
            o.grad_fn = ctx
            o._output_nr = nr
            o._requires_grad = True
        elif record:
            o._requires_grad = False
        out_tensors[id(given)] = nr
        out_tensors[id(o)] = nr
        wrapped.append(o)
        nr += 1
    if not record:
        return wrapped[0] if single else tuple(wrapped)
    ctx.num_outputs = max(nr, 1)
    ctx._out_meta = out_meta
    tensor_needs = [n for n, it in zip(needs, is_tensor) if it]
    ctx.next_functions = tuple(_edge(t) if n else (None, 0) for t, n in zip(tensors, tensor_needs))
    ctx.input_meta = tuple((t._data.shape, t._data.dtype) for t in tensors)
    to_save = ctx.__dict__.pop("to_save", None)
    if to_save:
        saved = []
        saved_outputs = {}
        for i, t in enumerate(to_save):
            if t is not None and id(t) in out_tensors and t.grad_fn is ctx:
                # an output: kept without its history (no cycle), unpacked with it
                u = Tensor._wrap(t._data)
                u._version = t._version
                saved_outputs[i] = out_tensors[id(t)]
                t = u
            saved.append(t)
        ctx.saved = tuple(saved)
        ctx.saved_versions = tuple(None if t is None else t._version.value for t in saved)
        ctx._saved_outputs = saved_outputs
    from ..events import OP_RECORDED, hub

    if hub.active:
        for o in wrapped:
            if isinstance(o, Tensor) and o.grad_fn is ctx:
                hub.emit(OP_RECORDED, node=ctx, output=o)
    return wrapped[0] if single else tuple(wrapped)
