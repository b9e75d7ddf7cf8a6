"""In-place writes (``add_``, ``x += 1``, ``x[0] = v``, ``zero_``...) and how they rewrite history.

The tensor's memory is overwritten and its version counter bumped, so any node that saved the old
value raises PyTorch's "modified by an inplace operation" error at backward. If a gradient must flow,
the tensor's ``grad_fn`` becomes the op's node, whose first edge is the tensor's previous history.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import result_type
from ..events import OP_RECORDED, hub
from ..ops.dispatch import edge
from ..ops.table import OPS
from .grad_mode import state as grad_state
from .node import Node

_KIND_TITLE = {"f": "Float", "i": "Long", "u": "Byte", "b": "Bool"}


def _title(dt: np.dtype) -> str:
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
            "bool": "Bool", "float16": "Half", "uint8": "Byte"}.get(dt.name, dt.name)


def apply_inplace(op, self, other=None, **params):
    from ..tensor import Tensor

    other_t = other if isinstance(other, Tensor) else None
    if other is not None and not isinstance(other, Tensor) and not np.isscalar(other):
        other_t = Tensor._wrap(np.asarray(other))
        other = other_t
    args = [self._data] if other is None else [self._data, other._data if other_t is not None else other]
    dt = result_type(*args) if op.promote else self._data.dtype
    if op.name == "div" and dt.kind != "f":
        dt = np.dtype(np.float32)
    if op.promote and not np.can_cast(dt, self._data.dtype, casting="same_kind") or (
        dt.kind == "f" and self._data.dtype.kind != "f"
    ):
        raise RuntimeError(
            f"result type {_title(dt)} can't be cast to the desired output type {_title(self._data.dtype)}"
        )
    if other_t is not None and other_t.shape != self.shape:
        try:
            target = np.broadcast_shapes(self._data.shape, other_t._data.shape)
        except ValueError:
            target = None
        if target != self._data.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast "
                f"shape [{', '.join(map(str, target or other_t.shape))}]"
            )
    cast = [a.astype(dt, copy=False) if isinstance(a, np.ndarray) else np.asarray(a, dtype=dt) for a in args]
    out = op.forward(*cast, **params) if params else op.forward(*cast)
    needs = grad_state.enabled and op.vjps is not None and (
        self.requires_grad or (other_t is not None and other_t.requires_grad)
    )
    if needs and self._base is not None and self._base.requires_grad:
        raise RuntimeError(
            "gradstep does not support in-place operations on a view of a tensor that requires "
            "grad; write the result to a new tensor instead (for example y = y * 2)"
        )
    node = None
    if needs:
        old = Tensor._wrap(self._data.copy()) if "x" in op.saves else None
        saved = None
        if op.saves and ("x" in op.saves or "y" in op.saves):
            saved = (old, other_t if "y" in op.saves else None)
            if saved[1] is None and other is not None and "y" in op.saves:
                saved = (old, Tensor._wrap(cast[1]))
        next_functions = (edge(self),) + (() if other is None else (edge(other_t) if other_t is not None else (None, 0),))
        meta = tuple((a.shape, a.dtype) for a in cast)
        meta = (( self._data.shape, self._data.dtype),) + meta[1:]
        node = Node(op, params, next_functions, meta, saved, None, None)
    np.copyto(self._data, out, casting="unsafe")
    self._version.value += 1
    if node is not None:
        if "r" in op.saves:
            node.ans = self._data
            node.ans_version = (self._version, self._version.value, self._data.shape, self._data.dtype)
        self.grad_fn = node
        self._requires_grad = True
        self._retains_grad = False
        if hub.active:
            hub.emit(OP_RECORDED, node=node, output=self)
    return self


def overwrite(self, value):
    """``zero_()`` and ``fill_(v)``."""
    if value == 0 and not isinstance(value, bool):
        return apply_inplace(OPS["zero"], self)
    return apply_inplace(OPS["fill"], self, None, value=value)


def copy_from(self, src):
    return apply_inplace(OPS["copy"], self, src)


def copy_slices(target, index, value_t, value):
    """``target[index] = value`` where a gradient must flow: target's grad_fn becomes CopySlices."""
    from ..tensor import Tensor

    if target._base is not None and target._base.requires_grad:
        raise RuntimeError(
            "gradstep does not support item assignment into a view of a tensor that requires "
            "grad; assign into the base tensor instead"
        )
    old_edge = edge(target)
    v_edge = edge(value_t) if value_t is not None else (None, 0)
    v_arr = value_t._data if value_t is not None else np.asarray(value, dtype=target._data.dtype)
    target._data[index] = v_arr
    target._version.value += 1
    node = Node(OPS["copy_slices"], {"index": index}, (old_edge, v_edge),
                ((target._data.shape, target._data.dtype), (v_arr.shape, target._data.dtype)),
                None, None, None)
    target.grad_fn = node
    target._requires_grad = True
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=target)
    del Tensor
