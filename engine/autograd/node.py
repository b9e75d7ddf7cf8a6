"""Graph nodes: one ``Node`` per recorded op (named as PyTorch names it) and ``AccumulateGrad``.

The graph has no reference cycles: an output tensor points at its node, a node points at its
inputs' nodes and at the input tensors it saved, never back at its output (the output's value is
saved as a bare array, retained-grad targets as weak references). So CPython frees a graph by
reference counting alone and the garbage collector never has to walk it.
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from .. import _native
from ..torch_names import TorchNamedMeta

_sequence = itertools.count()
_NONES = ((), (None,), (None, None), (None, None, None))  # a rule's arguments when none saved

_FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class NodeHooks:
    """A node's own hooks, PyTorch's function pre- and post-hooks: ``pre`` hooks get all of the
    node's incoming gradients at once (``hook(grad_outputs)``), ``post`` hooks what it computed
    as well (``hook(grad_inputs, grad_outputs)``); a tuple one returns replaces the first
    argument. The scheduler calls them only when the node runs (engine/autograd/scheduler.py)."""

    __slots__ = ("pre", "post")

    def __init__(self) -> None:
        self.pre = []
        self.post = []


class _HookMethods:
    """``grad_fn.register_hook`` / ``register_prehook``, for op nodes and accumulators alike."""

    __slots__ = ()

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node ran (``grad_inputs``: what it
        sends each input, ``grad_outputs``: what it received); a returned tuple replaces
        ``grad_inputs``. Returns a handle whose ``remove()`` takes the hook off."""
        return _add_node_hook(self, "post", fn)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs (after the tensor hooks); a returned
        tuple replaces ``grad_outputs``. Returns a handle whose ``remove()`` takes it off."""
        return _add_node_hook(self, "pre", fn)


def _add_node_hook(node, kind: str, fn):
    hooks = node.hooks
    if hooks is None:
        hooks = node.hooks = NodeHooks()
    target = getattr(hooks, kind)
    target.append(fn)
    return _RemovableHandle(target, fn)


class Node(_HookMethods, metaclass=TorchNamedMeta):
    """A backward function: what ``tensor.grad_fn`` returns.

    ``next_functions`` holds one ``(node, output_nr)`` pair per input, ``(None, 0)`` for inputs that
    need no gradient. Saved tensors are kept with the version they had when saved, so that an
    in-place change made later is caught as PyTorch catches it.
    """

    __slots__ = (
        "op",
        "params",
        "next_functions",
        "input_meta",
        "saved",
        "saved_versions",
        "ans",
        "ans_counter",
        "ans_version",
        "freed",
        "sequence_nr",
        "num_outputs",
        "pre_hooks",
        "hooks",
        "retained",
        "_metadata",
        "__weakref__",
    )

    def __new__(cls, op=None, *args, **kwargs):
        # ``type(y.grad_fn).__name__`` is PyTorch's node name (``MulBackward0``), as tutorials
        # print it: each node is made of a subclass named after its op, made once per name.
        if op is None:  # copy and pickle make the object first, then set its slots
            return object.__new__(cls)
        return object.__new__(node_class(cls, op.node_name))

    def __init__(self, op, params, next_functions, input_meta, saved, ans, ans_version,
                 saved_versions=None):
        self.op = op
        self.params = params
        self.next_functions = next_functions
        self.input_meta = input_meta  # ((shape, np.dtype), ...) per input
        # Per argument, what the rule reads: a Tensor (checked against its version at backward),
        # a constant (a Python scalar or an array the op cast), or None.
        self.saved = saved
        if saved and saved_versions is None:
            saved_versions = [t._version.value if hasattr(t, "_version") else None for t in saved]
        self.saved_versions = saved_versions
        self.ans = ans  # the output's array, when the rule reads it
        # the output's version counter and its value when saved (when ans is saved): a counter
        # and an int rather than a tuple holding them, one object less per node for the collector
        if ans_version is None:
            self.ans_counter = None
            self.ans_version = None
        else:
            self.ans_counter, self.ans_version = ans_version[0], ans_version[1]
        self.freed = False
        self.sequence_nr = next(_sequence)
        self.num_outputs = 1
        self.pre_hooks = None  # {output_nr: [hook, ...]} from tensor.register_hook on non-leaves
        self.hooks = None  # NodeHooks: grad_fn.register_prehook / register_hook
        self.retained = None  # {output_nr: weakref to a tensor that retains its grad}
        self._metadata = None  # made on first use: one dict less per op for the GC to track

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        return self.op.node_name

    def __repr__(self) -> str:
        return f"<{self.op.node_name.rsplit(':', 1)[-1]} object at {hex(id(self))}>"

    @property
    def requires_grad(self) -> bool:
        return True

    # The inspector reads what a node saved through this, as PyTorch's ``_saved_self`` etc.
    @property
    def saved_tensors(self) -> dict:
        """Saved values by role (``self``, ``other``, ``result``), raising once they are freed."""
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        from ..tensor import Tensor

        out = {}
        roles = self.op.roles
        if self.saved:
            for role, t in zip(roles, self.saved):
                if t is not None:
                    out[role] = t if isinstance(t, Tensor) else Tensor._wrap(np.asarray(t))
        if self.ans is not None:
            out["result"] = Tensor._wrap(self.ans)
        return out

    def release(self) -> None:
        """Free saved values after a backward without ``retain_graph`` (only if there were any)."""
        if self.saved or self.ans is not None:
            self.saved = None
            self.ans = None
            self.freed = True

    def check_saved(self):
        """The saved input arrays and output, raising PyTorch's errors if freed or modified."""
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        arrays = None
        if self.saved:
            arrays = []
            for t, version in zip(self.saved, self.saved_versions):
                if version is None:  # a constant, or nothing saved
                    arrays.append(t)
                    continue
                if t._version.value != version:
                    fn = t.grad_fn
                    producer = (
                        "" if fn is None else f", which is output {t._output_nr} of {fn.name()},"
                    )
                    raise _modified_error(t._data.dtype, t.shape, producer, t._version.value,
                                          version)
                arrays.append(t._data)
        counter = self.ans_counter
        if counter is not None:
            version = self.ans_version
            if counter.value != version:
                ans = self.ans
                raise _modified_error(ans.dtype, ans.shape,
                                      f", which is output 0 of {self.op.node_name},",
                                      counter.value, version)
        return arrays

    def apply(self, grads):
        """Gradients for each input (None where no gradient flows), from the output gradient."""
        # ``check_saved`` inlined for the common case (nothing freed or modified); any problem is
        # left to ``check_saved`` itself, which raises PyTorch's error.
        if self.freed:
            self.check_saved()
        g = grads[0]
        next_functions = self.next_functions
        if g is None:
            # no gradient arrived (a hook returned None for it): none flows on, as PyTorch's
            # nodes give undefined gradients for an undefined one
            return [None] * len(next_functions)
        saved = self.saved
        if saved:
            args = [g, self.ans]  # a rule's arguments: the gradient, the result, the inputs
            for t, version in zip(saved, self.saved_versions):
                if version is None:  # a constant, or nothing saved
                    args.append(t)
                elif t._version.value != version:
                    self.check_saved()
                else:
                    args.append(t._data)
        else:
            n = len(next_functions)
            args = [g, self.ans, *(_NONES[n] if n < 4 else (None,) * n)]
        counter = self.ans_counter
        if counter is not None and counter.value != self.ans_version:
            self.check_saved()
        params = self.params
        out = []
        vjps = self.op.vjps
        meta = self.input_meta
        i = 0
        for fn, _ in next_functions:
            if fn is None:
                out.append(None)
                i += 1
                continue
            gi = vjps[i](*args, **params) if params else vjps[i](*args)
            shape, dtype = meta[i]
            # Most gradients already have their input's shape and dtype: skip the call then.
            # (dtypes compared by identity first: float32's is one object, ``!=`` a slower call)
            if (gi is None or gi.__class__ is not _ndarray or gi.shape != shape
                    or (gi.dtype is not dtype and gi.dtype != dtype)):
                gi = _reduce_to(gi, shape, dtype)
            out.append(gi)
            i += 1
        return out


# Node parameters PyTorch exposes as ``_saved_<name>`` under the same name
_SAVED_PARAMS = frozenset({"exponent", "dim", "keepdim", "min", "max", "negative_slope", "alpha",
                           "beta", "threshold", "approximate", "reduction", "ignore_index"})


def _saved_attribute(node, attr):
    """``grad_fn._saved_<name>``: a saved input (None when PyTorch did not need to save it), the
    saved result (a tensor whose grad_fn is the node), or a saved argument."""
    from ..tensor import Tensor

    role = attr[len("_saved_"):]
    op = node.op
    saves = getattr(op, "saves", "") or ""
    roles = getattr(op, "roles", ())
    if role == "result" and "r" in saves:
        if node.freed:
            raise RuntimeError(_FREED_MESSAGE)
        t = Tensor._wrap(node.ans)
        t.grad_fn = node
        t._requires_grad = True
        return t
    for i, letter in enumerate("xyz"):
        if letter in saves and i < len(roles) and roles[i] == role:
            if node.freed:
                raise RuntimeError(_FREED_MESSAGE)
            saved = node.saved
            value = saved[i] if saved is not None and i < len(saved) else None
            if value is None or isinstance(value, Tensor):
                return value
            return Tensor._wrap(np.asarray(value))  # a wrapped number: a 0-d tensor
    params = node.params or {}
    if role in _SAVED_PARAMS:
        if role in params:
            value = params[role]
            if isinstance(value, int) and role in getattr(op, "int_lists", ()):
                return (value,)  # an int[] argument in PyTorch
            return value
        defaults = getattr(op, "param_defaults", None)  # the row's (engine/ops/table.py)
        if defaults and role in defaults:
            return defaults[role]
    raise AttributeError(f"'{op.node_name.rsplit(':', 1)[-1]}' object has no attribute '{attr}'")


# PyTorch's ``grad_fn._saved_self`` & co., as properties (raising AttributeError where that node
# has no such attribute). Not a ``__getattr__``: a class with one pays for it on every attribute
# read, and the backward loop reads node attributes all the time.
def _saved_property(attr):
    return property(lambda self: _saved_attribute(self, attr),
                    doc=f"PyTorch's ``{attr}`` of this node")


for _role in ("self", "other", "result", "mat1", "mat2", "vec", "tensor", "target", "weight",
              "condition", "exponent", "dim", "keepdim", "min", "max", "negative_slope", "alpha",
              "beta", "threshold", "approximate", "reduction", "ignore_index"):
    setattr(Node, "_saved_" + _role, _saved_property("_saved_" + _role))
del _role


def _np_name(dtype) -> str:
    from ..dtypes import tensor_type_name

    return tensor_type_name(dtype)[len("torch."):]


def _modified_error(dtype, shape, producer, current, version) -> RuntimeError:
    # PyTorch names the producing node without "Backward", and without the overload number when
    # it is 0: "output 0 of Exp" for ExpBackward0, "output 0 of Pow1" for PowBackward1
    import re

    producer = re.sub(r"Backward0,$", ",", producer)
    producer = re.sub(r"Backward(\d+),$", r"\1,", producer)
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{_np_name(dtype)} [{', '.join(map(str, shape))}]]{producer} is at "
        f"version {current}; expected version {version} instead. Hint: enable anomaly detection "
        "to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _reduce_to(g, shape, dtype):
    """Undo broadcasting: sum ``g`` down to ``shape`` (done once here, so rules stay
    shape-agnostic)."""
    if g is None:
        return None
    gshape = g.shape
    if gshape != shape:
        extra = len(gshape) - len(shape)
        axes = list(range(extra))
        i = extra
        for n in shape:
            if n == 1 and gshape[i] != 1:
                axes.append(i)
            i += 1
        axes = tuple(axes)
        if extra and len(axes) == extra:
            # only leading dimensions summed away (a bias): the sum has the shape already, and is
            # a new array rather than a view of one
            g = _sum_leading(g, axes, shape)
        elif axes:
            g = g.sum(axis=axes, keepdims=True)
            if extra:
                g = g.reshape(shape)
        elif extra:
            g = g.reshape(shape)
        elif g.shape != shape:
            g = np.broadcast_to(g, shape).copy()
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


def _sum_leading(g, axes, shape):
    """numpy's sum of ``g`` over its leading dimensions ``axes`` into ``shape`` (its trailing
    ones). For a C-contiguous float32/float64 ``g`` summed into two or more elements, numpy adds
    the rows one after the other into +0.0, each element on its own: the compiled
    ``column_sum`` (engine/_native/sums.c) does the same in one call, a third of the ufunc's
    reduce's cost on a bias's (64, 16) gradient. Into one element numpy sums pairwise: its own."""
    if _column_sum is not None:
        n = 1
        for d in shape:
            n *= d
        if n > 1:
            out = np.empty(shape, g.dtype)
            try:
                _column_sum(g, out)
                return out
            except (ValueError, BufferError):  # not contiguous, or not float32/float64
                pass
    g = _add_reduce(g, axis=axes)  # what ``ndarray.sum`` calls
    if g.shape != shape:
        g = g.reshape(shape)  # raises numpy's error, as before
    return g


_NODE_CLASSES: dict = {}
_add_reduce = np.add.reduce
# read once: a gradient's reduction is too quick for an environment lookup per call
_column_sum = None if _native.sums() is None else _native.sums().column_sum
_ndarray = np.ndarray


def node_class(base: type, node_name: str) -> type:
    """The subclass of ``base`` a node of ``node_name`` is made of, named as PyTorch names the
    node's type (``<class 'MulBackward0'>``: torch's node types print with no module; the
    ``__module__`` stays the engine's, which the script interpreter's safety policy keys on)."""
    key = (base, node_name)
    cls = _NODE_CLASSES.get(key)
    if cls is None:
        name = node_name.rsplit(":", 1)[-1]
        cls = type(base)(name, (base,), {"__slots__": (), "_torch_class_name": name})
        _NODE_CLASSES[key] = cls
    return cls


class _JoinNode(Node):
    """One node for all the outputs of an op that cuts its input along ``dim``: its gradient
    joins the outputs' gradients back along ``dim``, zeros for the outputs no gradient reached."""

    __slots__ = ()
    stacks = False  # stack the pieces (unbind) rather than concatenate them (split)

    def _piece_shapes(self):
        shape, dim = self.input_meta[0][0], self.params["dim"]
        if self.stacks:
            return [shape[:dim] + shape[dim + 1:]] * self.num_outputs
        return [shape[:dim] + (n,) + shape[dim + 1:] for n in self.params["sizes"]]

    def _joined(self, grads, zeros, join, cast):
        if self.next_functions[0][0] is None:
            return [None]
        ref = next((g for g in grads if g is not None), None)
        if ref is None:
            return [None]
        parts = [g if g is not None else zeros(ref, s)
                 for g, s in zip(grads, self._piece_shapes())]
        return [cast(join(parts, self.params["dim"]), self.input_meta[0][1])]

    def apply(self, grads):
        join = np.stack if self.stacks else np.concatenate
        return self._joined(grads, lambda ref, s: np.zeros_like(ref, shape=s),
                            lambda parts, dim: join(parts, axis=dim),
                            lambda out, dt: out if out.dtype == dt else out.astype(dt))

    def apply_traced(self, grads):
        """``apply`` on Tensors that record their graph (``create_graph=True``)."""
        from ..ops import api

        return self._joined(
            grads, lambda ref, s: ref.__class__._wrap(np.zeros_like(ref._data, shape=s)),
            api.stack if self.stacks else api.cat,
            lambda out, dt: out if out._data.dtype == dt else api.to(out, dt))


class UnbindNode(_JoinNode):
    """PyTorch's UnbindBackward0: one node for all the outputs of ``unbind`` (iterating a tensor
    unbinds it), output k being the k-th slice along ``dim``. Its gradient is the outputs'
    gradients stacked along ``dim``, zeros for the outputs no gradient reached."""

    __slots__ = ()
    stacks = True


class SplitNode(_JoinNode):
    """PyTorch's SplitBackward0 / SplitWithSizesBackward0: one node for all the outputs of
    ``split`` / ``chunk`` (output k the k-th piece along ``dim``, of ``sizes[k]``). Its gradient
    is the outputs' gradients concatenated along ``dim``, zeros for the outputs none reached."""

    __slots__ = ()


class PairNode(Node):
    """One node for an op's two differentiable outputs (``var_mean``, ``std_mean``, ``aminmax``):
    the row's ``pair_grad(grads, **params)`` (``engine/ops/table.py``) gives the input's
    gradient from both outputs' gradients, None for an output no gradient reached."""

    __slots__ = ()

    def apply(self, grads):
        if self.next_functions[0][0] is None or all(g is None for g in grads):
            return [None]
        from ..ops.table import pair_grad

        out = pair_grad(self.op.name, grads, **self.params)
        dtype = self.input_meta[0][1]
        return [out if out.dtype == dtype else out.astype(dtype)]

    def apply_traced(self, grads):
        raise NotImplementedError(
            f"create_graph=True through {self.name()} is not supported by the engine")


class FusedNode(Node):
    """One node for the several outputs of a fused kernel (``MkldnnRnnLayerBackward0``,
    ``ScaledDotProductFlashAttentionForCpuBackward0``) whose backward is one numpy kernel:
    ``params["backward"]`` maps (saved arrays, per-output grads with zeros filled in) to a grad
    per input (``engine/ops/layers.py``)."""

    __slots__ = ()

    def apply(self, grads):
        if self.freed:
            raise RuntimeError(_FREED_MESSAGE)
        saved = self.check_saved()
        shapes = self.params["output_meta"]
        ref = next(g for g in grads if g is not None)
        full = [np.zeros_like(ref, shape=s, dtype=d) if g is None else g
                for g, (s, d) in zip(grads, shapes)]
        out = self.params["backward"](saved, full)
        return [g if fn is not None else None for g, (fn, _) in zip(out, self.next_functions)]

    def apply_traced(self, grads):
        raise NotImplementedError(
            f"create_graph=True through {self.op.node_name} is not implemented by the engine")


class AccumulateGrad(_HookMethods, metaclass=TorchNamedMeta):
    """The node behind a leaf that requires grad: it adds incoming gradients into ``leaf.grad``."""

    __slots__ = ("variable", "_metadata", "pre_hooks", "hooks", "__weakref__")
    _torch_class_name = "AccumulateGrad"  # prints as torch's C++ node type, with no module

    op = None
    freed = False
    # the same for every accumulator: class attributes, not per-instance fields
    next_functions = ()
    sequence_nr = float("inf")  # PyTorch runs accumulators as soon as they are ready
    num_outputs = 1

    def __init__(self, variable) -> None:
        self.variable = variable
        self._metadata = None  # made on first use (one made per parameter per step otherwise)
        self.pre_hooks = None
        self.hooks = None

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @metadata.setter
    def metadata(self, value) -> None:
        self._metadata = value

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    @property
    def requires_grad(self) -> bool:
        return True

    def release(self) -> None:
        pass


def _accumulator_maker():
    """What ``tensor._grad_accumulator`` makes a leaf's accumulator with (one per leaf per graph,
    as PyTorch's: the graph holds it, the leaf only a weak reference): with the compiled
    engine/_native/objects.c a copy of one that ``AccumulateGrad.__init__`` made, else that
    ``__init__``."""
    objects = _native.objects()
    if objects is None or not objects.cloneable(AccumulateGrad):
        return AccumulateGrad
    clone = objects.clone
    proto = AccumulateGrad(None)

    def new_accumulator(variable):
        acc = clone(proto)
        acc.variable = variable
        return acc

    return new_accumulator


new_accumulator = _accumulator_maker()


class _RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook off again."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list, fn) -> None:
        self._hooks = hooks
        self._fn = fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


RemovableHandle = _RemovableHandle

__all__ = ["Node", "NodeHooks", "UnbindNode", "AccumulateGrad", "RemovableHandle", "weakref"]
