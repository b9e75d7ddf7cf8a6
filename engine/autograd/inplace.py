"""In-place writes (``add_``, ``x += 1``, ``x[0] = v``, ``zero_``...) and how they rewrite history.

The tensor's memory is overwritten and its version counter bumped, so any node that saved the old
value raises PyTorch's "modified by an inplace operation" error at backward. If a gradient must
flow, the tensor's ``grad_fn`` becomes the op's node, whose first edge is the tensor's previous
history; written through a view, the view's base records it (``rebase_on_base``).
"""

from __future__ import annotations

import numpy as np

from ..dtypes import c_type_name, result_type, scalar_type_name
from ..events import OP_RECORDED, hub
from ..ops.dispatch import edge, scalar_array
from ..ops.table import OPS
from .grad_mode import state as grad_state
from .node import Node

_title = scalar_type_name


_FAST_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
_Tensor = None


def grad_dtype_error(given: np.dtype, own: np.dtype) -> RuntimeError:
    """PyTorch's error for ``t.grad = g`` with another dtype (scalar-type names, two spellings)."""
    return RuntimeError(
        f"attempting to assign a gradient with dtype '{c_type_name(given)}' to a "
        f"tensor with grad_dtype '{_title(own)}'. The gradient must match the tensor's grad_dtype "
        "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
        "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
        "dtypes of a tensor and its gradient may break downstream systems that assume they match."
    )


def apply_inplace(op, self, other=None, **params):
    global _Tensor
    if _Tensor is None:
        from ..tensor import Tensor as _T

        _Tensor = _T
    Tensor = _Tensor
    # Fast path for what optimizers do many times per step (``p -= lr * g`` under no_grad): a
    # float tensor updated by a same-shaped, same-dtype tensor or a Python number, with nothing to
    # record. Same values and version bump as the general path below.
    ufunc = _FAST_UFUNCS.get(op.name)
    if ufunc is not None and not params and self._data.dtype.kind == "f":
        o = other._data if isinstance(other, Tensor) else other
        recording = grad_state.enabled and (
            self._requires_grad or (isinstance(other, Tensor) and other._requires_grad)
        )
        if not recording and (
            o.__class__ is float
            or o.__class__ is int
            or (o.__class__ is np.ndarray and o.dtype == self._data.dtype
                and o.shape == self._data.shape)
        ):
            ufunc(self._data, o, out=self._data)
            self._version.value += 1
            return self

    other_t = other if isinstance(other, Tensor) else None
    if other is not None and not isinstance(other, Tensor) and not np.isscalar(other):
        other_t = Tensor._wrap(np.asarray(other))
        other = other_t
    args = [self._data]
    if other is not None:
        args.append(other._data if other_t is not None else other)
    dt = result_type(*args) if op.promote else self._data.dtype
    if op.floating and dt.kind != "f":  # exp_, div_...: integers compute in float
        dt = np.dtype(np.float32)
    if op.promote and not np.can_cast(dt, self._data.dtype, casting="same_kind") or (
        dt.kind == "f" and self._data.dtype.kind != "f"
    ):
        raise RuntimeError(
            f"result type {_title(dt)} can't be cast to the desired output type "
            f"{_title(self._data.dtype)}"
        )
    if other_t is not None and other_t.shape != self.shape:
        try:
            target = np.broadcast_shapes(self._data.shape, other_t._data.shape)
        except ValueError:
            target = None
        if target != self._data.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the "
                "broadcast "
                f"shape [{', '.join(map(str, target or other_t.shape))}]"
            )
    cast = [a.astype(dt, copy=False) if isinstance(a, np.ndarray) else scalar_array(a, dt)
            for a in args]
    out = op.forward(*cast, **params) if params else op.forward(*cast)
    needs = grad_state.enabled and op.vjps is not None and (
        self.requires_grad or (other_t is not None and other_t.requires_grad)
    )
    node = None
    if needs:
        # PyTorch saves an argument only if a gradient that reads it will be computed
        save_x = "x" in op.saves and _needed(op, 0, self, other_t)
        save_y = "y" in op.saves and _needed(op, 1, self, other_t)
        old = None
        if save_x:
            # the value before the write, as a clone that keeps self's history (PyTorch saves
            # ``original_self`` so): a first backward only reads it, a second one differentiates
            old = Tensor._wrap(self._data.copy())
            if self._requires_grad:  # a hidden node: not announced, reachable only from here
                old.grad_fn = Node(OPS["clone"], {}, (edge(self),),
                                   ((self._data.shape, self._data.dtype),), None, None, None)
                old._requires_grad = True
        saved = None
        if save_x or save_y:
            saved = (old, other_t if save_y else None)
            if saved[1] is None and other is not None and save_y:
                saved = (old, Tensor._wrap(cast[1]))
            if other is None:
                saved = saved[:1]  # one argument: the rule's parameters follow ``x`` directly
        next_functions = (edge(self),)
        edged = other is not None and (op.inputs is None or 1 in op.inputs)  # x.fmod_(0.3): none
        if edged:
            next_functions += (edge(other_t) if other_t is not None else (None, 0),)
        meta = tuple((a.shape, a.dtype) for a in cast)
        meta = (( self._data.shape, self._data.dtype),) + (meta[1:] if edged else ())
        node = Node(op, params, next_functions, meta, saved, None, None)
    np.copyto(self._data, out, casting="unsafe")
    self._version.value += 1
    if node is not None:
        if "r" in op.saves:
            node.ans = self._data
            node.ans_counter = self._version
            node.ans_version = self._version.value
        take_history(self, node)
    return self


def take_history(self, node) -> None:
    """``self`` (just written in place) gets ``node`` as its ``grad_fn``; written through a view,
    the view's base records the write (``rebase_on_base``)."""
    if _rebases(self):
        node = rebase_on_base(self, node, self._data)
    self.grad_fn = node
    # the new node has one output: output k of a multi-output node (``var_mean``'s mean)
    # written in place would otherwise keep k and index past the node's grads
    self._output_nr = 0
    self._requires_grad = True
    self._retains_grad = False
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=self)


def _needed(op, i, self, other_t) -> bool:
    """Whether argument ``i`` (0: self, 1: other) of an in-place op is saved (``Op.save_if``)."""
    users = op.save_users.get(i) if op.save_users is not None else None
    if users is None:
        return True
    args = (self, other_t)
    return any(k < 2 and args[k] is not None and args[k]._requires_grad for k in users)


def overwrite(self, value):
    """``zero_()`` and ``fill_(v)``."""
    if value == 0 and not isinstance(value, bool):
        return apply_inplace(OPS["zero"], self)
    return apply_inplace(OPS["fill"], self, None, value=value)


def copy_from(self, src):
    return apply_inplace(OPS["copy"], self, src)


def copy_slices(target, index, value_t, value):
    """``target[index] = value`` where a gradient must flow: target's grad_fn becomes CopySlices
    (IndexPutBackward0 for a tensor or mask index); written into a view, the view's base gets it."""
    old_edge = edge(target)
    v_edge = edge(value_t) if value_t is not None else (None, 0)
    v_arr = value_t._data if value_t is not None else np.asarray(value, dtype=target._data.dtype)
    target._data[index] = v_arr
    target._version.value += 1
    # ``x[mask] = v`` and ``x[[0, 2]] = v`` are index_put_ in PyTorch, basic indices CopySlices
    parts = index if isinstance(index, tuple) else (index,)
    advanced = any(isinstance(i, np.ndarray) for i in parts)
    meta = ((target._data.shape, target._data.dtype), (v_arr.shape, target._data.dtype))
    if _rebases(target):
        # PyTorch copies into a view of the view (basic index) or index_puts into the view itself;
        # either way the base records one CopySlices over that region.
        if advanced:
            inner = Node(OPS["index_put"], {"index": index}, (old_edge, v_edge), meta, None, None,
                         None)
            region = target._data
        else:
            # a trailing Ellipsis keeps even ``v[0, 1]`` a (0-d) view rather than a copied scalar
            region = target._data[parts if any(p is Ellipsis for p in parts) else parts + (...,)]
            inner = Node(OPS["copy"], {}, (old_edge, v_edge),
                         ((region.shape, region.dtype), meta[1]), None, None, None)
        node = rebase_on_base(target, inner, region)
    else:
        op = OPS["index_put"] if advanced else OPS["copy_slices"]
        node = Node(op, {"index": index}, (old_edge, v_edge), meta, None, None, None)
    target.grad_fn = node
    target._requires_grad = True
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=target)


# -- in-place writes through a view ----------------------------------------------------------------

def _rebases(t) -> bool:
    """Whether an in-place write into ``t`` rewrites its base's history (PyTorch's view + in-place
    rule). ``t.detach()`` shares memory through ``_base`` but is no differentiable view of it."""
    base = t._base
    return base is not None and (t.grad_fn is not None or not base.requires_grad)


def flat_positions(base: np.ndarray, region: np.ndarray):
    """The flat (C-order) positions in ``base`` of each element of ``region``, a numpy view into
    it; None when ``base`` has gaps in memory (then no layout-alike index array exists)."""
    # An index array laid out in memory as ``base`` is (C, Fortran or any dense order), holding
    # each element's C-order position; read through the region's offset and strides.
    if not np.shares_memory(base, region) or not _inside(base, region):
        return None
    logical = np.empty_like(base, dtype=np.int64)
    logical[...] = np.arange(base.size, dtype=np.int64).reshape(base.shape)
    scale = logical.itemsize / base.itemsize
    if tuple(int(st * scale) for st in base.strides) != logical.strides:
        return None
    memory = logical.ravel(order="K")  # in memory order: a view of ``logical`` when dense
    if not np.shares_memory(memory, logical) or any(st < 0 for st in base.strides):
        return None
    start = region.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    first = memory[start // base.itemsize:]
    strides = tuple(int(st * scale) for st in region.strides)
    return np.lib.stride_tricks.as_strided(first, region.shape, strides).copy()


def _inside(base: np.ndarray, region: np.ndarray) -> bool:
    """Whether every byte ``region`` can reach lies within ``base``'s own bytes. A view whose base
    had its ``.data`` replaced by a smaller array still points into the old, larger buffer: an
    index array built from the new base must never be read through the old view's strides."""
    low, high = np.lib.array_utils.byte_bounds(base)
    region_low, region_high = np.lib.array_utils.byte_bounds(region)
    return low <= region_low and region_high <= high


class _CopySlicesOp:
    """An in-place op on a view, seen from the view's base (PyTorch's CopySlices): the base's old
    value gets the incoming gradient with the region replaced by the op's gradient for the view's
    old value; the op's other inputs get theirs from the region's gradient."""

    __slots__ = ("inner", "positions", "vjps")
    node_name = "torch::autograd::CopySlices"
    param_defaults: dict = {}  # CopySlices saves none of the inner row's parameters
    int_lists = ()

    def __init__(self, inner, positions) -> None:
        self.inner = inner
        self.positions = positions
        self.vjps = tuple(self._rule(i, rule) for i, rule in enumerate(inner.vjps))

    def _rule(self, i, rule):
        positions = self.positions

        def vjp(g, ans, *args, **params):
            region_grad = g.reshape(-1)[positions]
            gi = rule(region_grad, ans, *args, **params)
            if i:
                return gi
            out = g.copy()
            out.reshape(-1)[positions] = np.broadcast_to(gi, positions.shape)
            return out

        return vjp

    def __getattr__(self, name):
        return getattr(self.inner, name)


def rebase_on_base(view, node, region):
    """Move ``node`` (an in-place op recorded on ``view``, over ``region`` of it) onto the view's
    base as a CopySlices, and return the view's new node: AsStridedBackward0 over that CopySlices.
    """
    base = view._base
    if not _inside(base._data, view._data):
        raise RuntimeError(
            "this view no longer lies inside its base's memory (the base's .data was replaced "
            "after the view was taken), so an in-place write into it cannot be recorded; take "
            "the view again from the base, or write into a copy (for example y = y.clone())"
        )
    positions = flat_positions(base._data, region)
    if positions is None:
        raise RuntimeError(
            "gradstep supports in-place writes into a view only when the view's base is dense "
            "in memory; write into a copy instead (for example y = y.clone())"
        )
    node.op = _CopySlicesOp(node.op, positions)
    node.next_functions = (edge(base),) + tuple(node.next_functions[1:])
    node.input_meta = ((base._data.shape, base._data.dtype),) + tuple(node.input_meta[1:])
    base.grad_fn = node
    base._requires_grad = True
    if hub.active:
        hub.emit(OP_RECORDED, node=node, output=base)
    view_positions = positions if region is view._data else flat_positions(base._data, view._data)
    return Node(OPS["as_strided"], {"positions": view_positions, "base_shape": base._data.shape},
                ((node, 0),), ((base._data.shape, base._data.dtype),), None, None, None)
