"""Run a row of the op table on tensors and record its node: the only place graph edges are made."""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node
from ..dtypes import result_type
from ..events import OP_RECORDED, hub
from .table import OPS, Op, variadic_rules

_EMPTY: dict = {}


def _tensor_cls():
    from ..tensor import Tensor

    return Tensor


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
    Tensor = _tensor_cls()
    arrays = []
    tensors = []
    for a in args:
        if isinstance(a, Tensor):
            arrays.append(a._data)
            tensors.append(a)
        else:
            arrays.append(a)
            tensors.append(None)
    if op.promote:
        dt = result_type(*arrays)
        if op.name in ("div", "pow_tensor") and dt.kind != "f":
            dt = np.dtype(np.float32) if op.name == "div" else dt
        arrays = [
            a.astype(dt, copy=False) if isinstance(a, np.ndarray) else np.asarray(a, dtype=dt)
            for a in arrays
        ]
    out = op.forward(*arrays, **params) if params else op.forward(*arrays)
    if not isinstance(out, np.ndarray):
        out = np.asarray(out)
    result = Tensor._wrap(out)
    if op.view:
        base = tensors[0]
        result._base = base if base._base is None else base._base
        result._version = base._version
    if grad_state.anomaly and out.dtype.kind == "f" and not np.isfinite(out).all():
        _note_forward_anomaly(op, tensors, arrays, out)
    if not grad_state.enabled or op.vjps is None:
        return result
    needs = False
    for t in tensors:
        if t is not None and t.requires_grad:
            needs = True
            break
    if not needs:
        return result
    result._requires_grad = True
    result.grad_fn = _record(op, tensors, arrays, params, result)
    if hub.active:
        hub.emit(OP_RECORDED, node=result.grad_fn, output=result)
    return result


def _record(op, tensors, arrays, params, result, vjps=None):
    next_functions = tuple(
        edge(t) if t is not None else (None, 0) for t in tensors
    )
    input_meta = tuple((a.shape, a.dtype) if isinstance(a, np.ndarray) else ((), None) for a in arrays)
    saves = op.saves
    saved = None
    if saves:
        saved = tuple(
            _saved_input(tensors[i], arrays[i]) if "xyz"[i] in saves else None
            for i in range(min(len(tensors), 3))
        )
        if not any(s is not None for s in saved):
            saved = None
    ans = ans_version = None
    if "r" in saves:
        ans = result._data
        ans_version = (result._version, result._version.value, ans.shape, ans.dtype)
    node = Node(op, params, next_functions, input_meta, saved, ans, ans_version)
    if vjps is not None:
        node.op = _VariadicOp(op, vjps)
    return node


def _saved_input(t, array):
    """What a node keeps of an input: the tensor itself (so in-place changes are caught), or, for a
    Python scalar or an input the op cast to another dtype, a constant tensor of the array used."""
    Tensor = _tensor_cls()
    if t is not None and t._data is array:
        return t
    return Tensor._wrap(array)


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
