"""Run a row of the op table on tensors and record its node: the only place graph edges are made."""

from __future__ import annotations

import numpy as np

from .. import _native
from .. import budget as _budget
from .. import dtypes as _dtypes
from ..autograd.grad_mode import state as grad_state
from ..autograd.node import FusedNode, Node, _sequence, node_class
from ..dtypes import result_type
from ..events import OP_RECORDED, hub
from .table import OPS, Op, variadic_rules

_EMPTY: dict = {}
_new = object.__new__
_next_sequence = _sequence.__next__


_ndarray = np.ndarray
_Tensor = None
_TENSOR_TYPES = ()  # Tensor and its subclasses: ``a.__class__ in`` it is isinstance, faster
_wrap = None  # Tensor._wrap


def _tensor_cls():
    # Cached: an import statement per op would cost more than the op itself.
    if _Tensor is None:
        _bind_tensor()
    return _Tensor


def _bind_tensor():
    """Tensor (a circular import), its subclasses and its constructor, bound once; returns the
    constructor."""
    global _Tensor, _TENSOR_TYPES, _wrap
    from ..tensor import TENSOR_TYPES, Tensor

    _Tensor = Tensor
    _TENSOR_TYPES = TENSOR_TYPES
    _wrap = Tensor._wrap
    return _wrap


def edge(t):
    """The ``(node, output_nr)`` a gradient for ``t`` flows into, or ``(None, 0)``."""
    if not t.requires_grad:
        return (None, 0)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def apply(op: Op, *args, **params):
    """Run ``op`` on tensors (and Python scalars), returning a tensor that records the op."""
    # The hot path of every op: no helper calls in the common case (one to three arguments, the
    # tensors of one floating dtype, numbers with them: no promotion), the result made inline.
    wrap = _wrap or _bind_tensor()
    tensor_types = _TENSOR_TYPES
    ndarray = _ndarray
    n = len(args)
    a = args[0] if n else None
    fast = False
    if a.__class__ in tensor_types:
        d = a._data
        dt = d.dtype
        if dt.kind == "f" and d.__class__ is ndarray:
            if n == 1:
                fast = True
                arrays = (d,)
                tensors = args
                needs = a._requires_grad
            elif n == 2:
                b = args[1]
                c = b.__class__
                if c in tensor_types:
                    e = b._data
                    if (e.dtype is dt or e.dtype == dt) and e.__class__ is ndarray:
                        fast = True
                        arrays = (d, e)
                        tensors = args
                        needs = a._requires_grad or b._requires_grad
                elif c is float or c is int:
                    fast = True
                    arrays = (d, b)
                    tensors = (a, None)
                    needs = a._requires_grad
            elif n == 3:  # addmm (every nn.Linear call)
                b, c = args[1], args[2]
                if b.__class__ in tensor_types and c.__class__ in tensor_types:
                    e, f = b._data, c._data
                    if ((e.dtype is dt or e.dtype == dt) and (f.dtype is dt or f.dtype == dt)
                            and e.__class__ is ndarray and f.__class__ is ndarray):
                        fast = True
                        arrays = (d, e, f)
                        tensors = args
                        needs = a._requires_grad or b._requires_grad or c._requires_grad
    if not fast:
        arrays, tensors, needs = _gather(op, args, tensor_types)
    if _budget.guard is not None:  # a script's limits: the result's size, before computing it
        _check_result(op, arrays, params)
    try:
        out = op.forward(*arrays, **params) if params else op.forward(*arrays)
    except ValueError as e:
        raise _shape_error(e, arrays) from None
    if out.__class__ is not ndarray:
        out = np.asarray(out)
    result = wrap(out)  # one constructor (Tensor._wrap): a new slot is added in one place
    if op.view:
        base = tensors[0]
        result._base = base if base._base is None else base._base
        result._version = base._version
        result._multi_view = base._multi_view  # a view of unbind's output is one too
    if grad_state.anomaly and out.dtype.kind == "f" and not np.isfinite(out).all():
        _note_forward_anomaly(op, tensors, arrays, out)
    if not needs or not grad_state.enabled or op.vjps is None:
        if needs and op.view and op.vjps is not None:
            # PyTorch: a view made under no_grad of a tensor that requires grad reports
            # requires_grad (its base's), with no grad_fn
            result._requires_grad = True
        return result
    result._requires_grad = True
    result.grad_fn = node = _record(op, tensors, arrays, params, result)
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=result)
    return result


def _gather(op, args, tensor_types):
    """``apply``'s arguments past its fast path: (arrays, tensors or None, whether any requires
    grad), the arrays cast to PyTorch's result type when numpy would compute in another."""
    arrays = []
    tensors = []
    needs = False
    dt = None
    mixed = False
    scalar = False
    for a in args:
        if a.__class__ in tensor_types:
            d = a._data
            arrays.append(d)
            tensors.append(a)
            if a._requires_grad:
                needs = True
        else:
            d = a
            arrays.append(a)
            tensors.append(None)
        if d.__class__ is np.ndarray:
            ddt = d.dtype
            if dt is None:
                dt = ddt
            elif ddt is not dt and ddt != dt:
                mixed = True
        else:
            scalar = True
    # numpy already computes in PyTorch's result type when all arrays share a floating dtype
    # (Python scalars are weak, as in PyTorch): only other mixes are cast
    if op.promote and (mixed or dt is None or (dt.kind != "f" and (scalar or op.floating))):
        dt = result_type(*arrays)
        if op.floating and dt.kind != "f":
            dt = _dtypes.DEFAULT_FLOAT  # read each time: torch.set_default_dtype changes it
        arrays = [
            a.astype(dt, copy=False) if isinstance(a, np.ndarray) else scalar_array(a, dt)
            for a in arrays
        ]
    return arrays, tensors, needs


def scalar_array(a, dt):
    """A Python number as an array of ``dt``."""
    try:
        return np.asarray(a, dtype=dt)
    except OverflowError:  # ``uint8_tensor & -1``: PyTorch wraps the number round, as C casts
        return np.asarray(a).astype(dt)


# the rows whose result is the broadcast of their inputs' shapes
_BROADCASTING = frozenset(
    OPS[name] for name in (
        "add sub rsub mul div pow pow_tensor rpow clamp maximum minimum where remainder "
        "remainder_tensor fmod fmod_tensor floor_divide floor_divide_tensor rsub_tensor "
        "clamp_tensor masked_fill masked_fill_tensor div_scalar mul_scalar add_scalar eq ne lt "
        "le gt ge logical_and logical_or atan2 mse_loss binary_cross_entropy "
        "binary_cross_entropy_with_logits"
    ).split() if name in OPS) | {op for op in OPS.values() if op.make == "binary"}


def _mm_size(shapes, params):
    a, b = shapes[-2], shapes[-1]
    return a[0] * b[-1] if len(a) == 2 and len(b) == 2 else 0


def _bmm_size(shapes, params):
    a, b = shapes
    return a[0] * a[1] * b[-1] if len(a) == 3 and len(b) == 3 else 0


def _repeat_size(shapes, params):
    n = 1
    for r in params.get("repeats", ()):
        n *= max(int(r), 0)
    for d in shapes[0]:
        n *= d
    return n


_RESULT_SIZES = {OPS[name]: fn for name, fn in (
    ("mm", _mm_size), ("addmm", _mm_size), ("bmm", _bmm_size), ("repeat", _repeat_size),
) if name in OPS}


def _check_result(op, arrays, params) -> None:
    """The allocation budget (engine/budget.py) for ``op``'s result, before it is computed:
    the broadcast of the inputs (``a[:, None] + b[None, :]``), a matrix product, a repeat, and
    a copy of an input that is a view larger than its memory (``expand(...).contiguous()``)."""
    if op.view:
        return  # no new memory
    shapes = []
    n = 0
    itemsize = 1
    for a in arrays:
        if a.__class__ is np.ndarray:
            shapes.append(a.shape)
            if a.size > n:
                n = a.size
            if a.itemsize > itemsize:
                itemsize = a.itemsize
    if not shapes:
        return
    # an input larger than the limit can only be a view (expand): computing on it allocates it
    _budget.check_elements(n, itemsize=0)
    size_of = _RESULT_SIZES.get(op)
    if size_of is not None:
        m = size_of(shapes, params)
    elif op in _BROADCASTING and len(shapes) > 1:
        try:
            m = 1
            for d in np.broadcast_shapes(*shapes):
                m *= d
        except ValueError:
            return  # numpy's (PyTorch's) shape error follows
    else:
        return
    _budget.check_elements(m, itemsize=itemsize)  # the result's elements and bytes


def _shape_error(error: ValueError, arrays) -> Exception:
    """numpy's broadcasting error in PyTorch's words (other ValueErrors pass through)."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    if "broadcast" not in str(error) or len(shapes) < 2:
        return error
    sa, sb = shapes[0], shapes[1]
    for i, (m, n) in enumerate(zip(reversed(sa), reversed(sb))):
        if m != n and m != 1 and n != 1:
            return RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {max(len(sa), len(sb)) - 1 - i}"
            )
    return error


_NO_EDGE = (None, 0)
_SCALAR_META = ((), None)


_OP_PLANS: dict = {}  # {row: (its node prototype, its save plan, whether it saves its result)}


def _op_plan(op) -> tuple:
    """A row's recording plan, made once per row: the prototype its nodes are copies of
    (``_node_prototype``), ``((position, mask), ...)`` for the arguments its ``saves`` names (x,
    y, z: 0, 1, 2; ``mask`` the bits of the inputs whose gradient reads it, ``save_if``; None:
    always saved), and whether it saves its result (r)."""
    save_if = op.save_if
    saves = op.saves or ""
    plan = tuple((i, None if save_if is None else save_if.get(i, -1))
                 for i, role in enumerate("xyz") if role in saves)
    entry = _OP_PLANS[op] = (_node_prototype(node_class(Node, op.node_name), op), plan,
                             "r" in saves)
    return entry


def _node_prototype(cls, op):
    """A node of ``op``'s row as ``_record`` starts each one: the one place the first values of a
    recorded node's fields are spelled. ``_record`` copies it (``_new_node``) and writes the
    fields that differ per call (``Node(...)`` would cost a Python call and 16 writes)."""
    node = _new(cls)
    node.op = op
    node.params = _EMPTY
    node.next_functions = node.input_meta = ()
    node.saved = node.saved_versions = None
    node.ans = node.ans_counter = node.ans_version = None
    node.freed = False
    node.sequence_nr = -1
    node.num_outputs = 1
    node.pre_hooks = node.hooks = node.retained = node._metadata = None
    return node


def _remade(proto):
    """``clone``'s stand-in without the compiled kernel: the prototype made again."""
    return _node_prototype(proto.__class__, proto.op)


# The compiled copy (engine/_native/objects.c: one C call for the object and its 16 slots), read
# once: the variable is not looked up per op.
_objects = _native.objects()
_new_node = _objects.clone if _objects is not None and _objects.cloneable(Node) else _remade


def _record(op, tensors, arrays, params, result, vjps=None):
    # Plain code, not loops or generator expressions for up to three inputs: this runs once per
    # recorded op.
    try:
        proto, plan, keeps_result = _OP_PLANS[op]
    except KeyError:
        proto, plan, keeps_result = _op_plan(op)
    idx = op.inputs
    if idx is None:
        tensors_in, arrays_in = tensors, arrays
    else:
        tensors_in = [tensors[i] for i in idx]
        arrays_in = [arrays[i] for i in idx]
    n_in = len(tensors_in)
    ndarray = _ndarray
    # ``req``: a bit per input that will get a gradient (read by ``save_if``)
    if 0 < n_in < 4:
        t = tensors_in[0]
        if t is None or not t._requires_grad:
            e0 = _NO_EDGE
            req = 0
        else:
            fn = t.grad_fn
            e0 = (fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0)
            req = 1
        a = arrays_in[0]
        m0 = (a.shape, a.dtype) if a.__class__ is ndarray else _SCALAR_META
        if n_in == 1:
            next_functions = (e0,)
            input_meta = (m0,)
        else:
            t = tensors_in[1]
            if t is None or not t._requires_grad:
                e1 = _NO_EDGE
            else:
                fn = t.grad_fn
                e1 = (fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0)
                req |= 2
            a = arrays_in[1]
            m1 = (a.shape, a.dtype) if a.__class__ is ndarray else _SCALAR_META
            if n_in == 2:
                next_functions = (e0, e1)
                input_meta = (m0, m1)
            else:  # (addmm: the bias, then the matrices)
                t = tensors_in[2]
                if t is None or not t._requires_grad:
                    e2 = _NO_EDGE
                else:
                    fn = t.grad_fn
                    e2 = (fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0)
                    req |= 4
                a = arrays_in[2]
                next_functions = (e0, e1, e2)
                input_meta = (m0, m1,
                              (a.shape, a.dtype) if a.__class__ is ndarray else _SCALAR_META)
    else:
        next_functions = []
        input_meta = []
        req = 0
        bit = 1
        i = 0
        for t in tensors_in:
            a = arrays_in[i]
            i += 1
            if t is None or not t._requires_grad:
                next_functions.append(_NO_EDGE)
            else:
                fn = t.grad_fn
                if fn is not None:
                    next_functions.append((fn, t._output_nr))
                else:
                    next_functions.append((t._grad_accumulator(), 0))
                req |= bit
            bit <<= 1
            input_meta.append((a.shape, a.dtype) if a.__class__ is ndarray else _SCALAR_META)
        next_functions = tuple(next_functions)
        input_meta = tuple(input_meta)
    saved = versions = None
    if plan:
        n = len(tensors)
        for i, mask in plan:
            if i >= n:
                break
            if mask is not None and not mask & req:
                continue  # no gradient that reads it will be computed: not saved
            if saved is None:
                m = n if n < 3 else 3
                saved = [None] * m
                versions = [None] * m
            t = tensors[i]
            a = arrays[i]
            if t is not None and t._data is a:
                saved[i] = t  # the tensor itself, so a later in-place change is caught
                versions[i] = t._version.value
            else:
                saved[i] = a  # a Python scalar, or an input the op cast: a constant
        if versions is not None:
            # a tuple of ints: the collector untracks it, so it never reaches the oldest
            # generation
            versions = tuple(versions)
    # a copy of the row's prototype, with the fields that differ per call written here
    node = _new_node(proto)
    if vjps is not None:
        node.op = _VariadicOp(op, vjps)
    node.params = params
    node.next_functions = next_functions
    node.input_meta = input_meta
    if saved is not None:
        node.saved = saved
        node.saved_versions = versions
    if keeps_result:
        node.ans = result._data
        node.ans_counter = counter = result._version
        node.ans_version = counter.value
    node.sequence_nr = _next_sequence()
    return node


class _VariadicOp:
    """A row of the table with its per-input rules made for this call (cat, stack)."""

    __slots__ = ("_op", "vjps")

    def __init__(self, op, vjps) -> None:
        self._op = op
        self.vjps = vjps

    def __getattr__(self, name):
        return getattr(self._op, name)


def apply_variadic(name: str, tensors, **params):
    """Ops over a list of tensors (``cat``, ``stack``)."""
    Tensor = _tensor_cls()
    op = OPS[name]
    arrays = [t._data for t in tensors]
    if _budget.guard is not None:  # torch.cat([x] * 2000): the result's size first
        _budget.check_elements(sum(a.size for a in arrays),
                               itemsize=max(a.itemsize for a in arrays))
    dt = result_type(*arrays)
    arrays = [a.astype(dt, copy=False) for a in arrays]
    result = Tensor._wrap(np.asarray(op.forward(*arrays, **params)))
    if grad_state.enabled and any(t.requires_grad for t in tensors):
        result._requires_grad = True
        result.grad_fn = _record(op, list(tensors), arrays, params, result,
                                 vjps=variadic_rules(name, len(tensors)))
        if hub.active:
            hub.emit(OP_RECORDED, node=result.grad_fn, output=result)
    return result


def _note_forward_anomaly(op, tensors, arrays, out) -> None:
    """Anomaly mode: the first op whose output turns non-finite is remembered (and warned about)."""
    import warnings

    from ..autograd import anomaly

    if anomaly.first_forward is None:
        finite_inputs = all(
            not isinstance(a, np.ndarray) or a.dtype.kind != "f" or np.isfinite(a).all()
            for a in arrays
        )
        if finite_inputs:
            anomaly.first_forward = (op.name, op.node_name)
            warnings.warn(
                f"Anomaly detected: '{op.name}' produced nan/inf values from finite inputs"
                f" (its backward node would be {op.node_name}).",
                RuntimeWarning,
                stacklevel=4,
            )


def record_fused(op, inputs, outputs, saved, backward, num_outputs=None):
    """Tensors for the arrays ``outputs`` of a fused kernel, recorded by one ``FusedNode`` of the
    row ``op`` when an input (a Tensor or None) requires grad. ``saved``: extra arrays the
    backward reads after the inputs' arrays (the inputs are saved with their versions, so an
    in-place change is caught); ``num_outputs``: PyTorch's count when it has outputs the engine
    does not make (oneDNN's workspace)."""
    needs = grad_state.enabled and any(t is not None and t._requires_grad for t in inputs)
    node = None
    if needs:
        node = FusedNode(
            op, {"backward": backward,
                 "output_meta": tuple((o.shape, o.dtype) for o in outputs)},
            tuple((None, 0) if t is None else edge(t) for t in inputs),
            tuple(((0,), outputs[0].dtype) if t is None else (t.shape, t._data.dtype)
                  for t in inputs),
            [*inputs, *saved], None, None,
            saved_versions=[None if t is None else t._version.value for t in inputs]
            + [None] * len(saved))
        node.num_outputs = num_outputs or len(outputs)
    return outputs_of(node, outputs, False)


def outputs_of(node, arrays, requires_grad: bool) -> list:
    """Tensors for ``arrays``, output k of ``node`` (when not None) each; without a node they
    require grad when ``requires_grad`` (an op on a tensor that does, under no_grad)."""
    wrap = _tensor_cls()._wrap
    outs = []
    for i, a in enumerate(arrays):
        t = wrap(a)
        t._requires_grad = requires_grad or node is not None
        if node is not None:
            t.grad_fn = node
            t._output_nr = i
        outs.append(t)
    if node is not None and hub.active:
        for t in outs:
            hub.emit(OP_RECORDED, node=node, output=t)
    return outs
