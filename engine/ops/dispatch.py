"""Run a row of the op table on tensors and record its node: the only place graph edges are made."""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node
from ..dtypes import DEFAULT_FLOAT, result_type
from ..events import OP_RECORDED, hub
from .table import OPS, Op, variadic_rules

_EMPTY: dict = {}


_Tensor = None


def _tensor_cls():
    # Cached: an import statement per op would cost more than the op itself.
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor

        _Tensor = Tensor
    return _Tensor


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
    Tensor = _Tensor or _tensor_cls()
    arrays = []
    tensors = []
    needs = False
    for a in args:
        if isinstance(a, Tensor):
            arrays.append(a._data)
            tensors.append(a)
            if a._requires_grad:
                needs = True
        else:
            arrays.append(a)
            tensors.append(None)
    if op.promote and _needs_promotion(op, arrays):
        dt = result_type(*arrays)
        if op.floating and dt.kind != "f":
            dt = DEFAULT_FLOAT
        arrays = [
            a.astype(dt, copy=False) if isinstance(a, np.ndarray) else np.asarray(a, dtype=dt)
            for a in arrays
        ]
    try:
        out = op.forward(*arrays, **params) if params else op.forward(*arrays)
    except ValueError as e:
        raise _shape_error(e, arrays) from None
    if out.__class__ is not np.ndarray:
        out = np.asarray(out)
    result = Tensor._wrap(out)
    if op.view:
        base = tensors[0]
        result._base = base if base._base is None else base._base
        result._version = base._version
    if grad_state.anomaly and out.dtype.kind == "f" and not np.isfinite(out).all():
        _note_forward_anomaly(op, tensors, arrays, out)
    if not needs or not grad_state.enabled or op.vjps is None:
        return result
    result._requires_grad = True
    result.grad_fn = node = _record(op, tensors, arrays, params, result)
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=result)
    return result


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


def _needs_promotion(op, arrays) -> bool:
    """False when numpy already computes in PyTorch's result type: all arrays share one dtype and
    any Python scalars are of the same or a lower category (numpy treats them as weak, as PyTorch
    does). Checked first so the common case skips ``result_type``."""
    dt = None
    scalar = False
    for a in arrays:
        if a.__class__ is np.ndarray:
            if dt is None:
                dt = a.dtype
            elif a.dtype != dt:
                return True
        else:
            scalar = True
    if dt is None or dt.kind == "f":
        return dt is None
    return scalar or op.floating


_NO_EDGE = (None, 0)
_SCALAR_META = ((), None)


def _record(op, tensors, arrays, params, result, vjps=None):
    # Plain loops, not generator expressions: this runs once per recorded op.
    idx = op.inputs
    if idx is None:
        tensors_in, arrays_in = tensors, arrays
    else:
        tensors_in = [tensors[i] for i in idx]
        arrays_in = [arrays[i] for i in idx]
    next_functions = []
    input_meta = []
    for t, a in zip(tensors_in, arrays_in):
        if t is None or not t._requires_grad:
            next_functions.append(_NO_EDGE)
        elif t.grad_fn is not None:
            next_functions.append((t.grad_fn, t._output_nr))
        else:
            next_functions.append((t._grad_accumulator(), 0))
        input_meta.append((a.shape, a.dtype) if a.__class__ is np.ndarray else _SCALAR_META)
    saves = op.saves
    saved = versions = None
    if saves:
        n = len(tensors)
        for i, role in enumerate("xyz"):
            if i >= n or role not in saves:
                continue
            if saved is None:
                saved = [None] * min(n, 3)
                versions = [None] * min(n, 3)
            t, a = tensors[i], arrays[i]
            if t is not None and t._data is a:
                saved[i] = t  # the tensor itself, so a later in-place change is caught
                versions[i] = t._version.value
            else:
                saved[i] = a  # a Python scalar, or an input the op cast: a constant
    ans = ans_version = None
    if "r" in saves:
        ans = result._data
        ans_version = (result._version, result._version.value, ans.shape, ans.dtype)
    node = Node(op, params, tuple(next_functions), tuple(input_meta), saved, ans, ans_version,
                versions)
    if vjps is not None:
        node.op = _VariadicOp(op, vjps)
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
