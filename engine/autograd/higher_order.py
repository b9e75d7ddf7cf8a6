"""Higher-order gradients (``create_graph=True``): the backward pass run on Tensors, so that it is
itself recorded and can be differentiated again.

No second set of rules: the op table's rules are written with numpy calls, and here they receive
``Traced`` values instead of arrays. ``Traced`` wraps a Tensor and answers numpy's protocols
(``__array_ufunc__``, ``__array_function__``, the ndarray methods the rules use) with the engine's
own recorded ops. Comparisons give plain boolean arrays (masks are constants, as in PyTorch's
formulas). A saved output is handed to the rules as a Tensor whose ``grad_fn`` is the node that
made it -- what PyTorch's saved outputs unpack to -- so ``exp``'s ``g * ans`` is differentiable too.
A rule that needs a numpy function not covered below raises NotImplementedError naming it.

The pass itself is ``scheduler.execute`` with ``TracedArithmetic`` (the plain pass in
``backward.py`` runs the same scheduler on arrays).
"""

from __future__ import annotations

import operator

import numpy as np

from ..events import GRAD_ACCUMULATED, hub
from .scheduler import execute


def _api():
    from ..ops import api

    return api


def _tensor(x):
    """A Tensor for a Traced, an ndarray or a number (constants need no grad)."""
    from ..tensor import Tensor

    if isinstance(x, Traced):
        return x.t
    if isinstance(x, Tensor):
        return x
    return Tensor._wrap(np.asarray(x))


def _raw(x):
    """The plain values (for masks and index arithmetic, which are never differentiated)."""
    if isinstance(x, Traced):
        return x.t._data
    if isinstance(x, (list, tuple)):
        return type(x)(_raw(v) for v in x)
    return x


def _wrap(t):
    return Traced(t)


def _operand(x):
    # Python numbers stay numbers (PyTorch's wrapped scalars); arrays become constant tensors
    if isinstance(x, Traced):
        return x.t
    if x.__class__ is _WrappedFloat:
        return float(x)
    if x.__class__ is _WrappedInt:
        return int(x)
    if isinstance(x, np.ndarray):
        return _tensor(x)
    if isinstance(x, np.generic):
        return x.item()
    return x


def _binary(fn):
    return lambda a, b: _wrap(fn(_operand(a), _operand(b)))


def _scatter_add(out, positions, values):
    """``out`` plus ``values`` added at flat ``positions`` (repeats add up), differentiably: a
    product with a constant one-hot matrix, so it is recorded like any other op."""
    api = _api()
    positions = np.asarray(positions).reshape(-1)
    v = _tensor(values)
    v = api.expand(v, *positions.shape) if v.ndim == 0 else api.reshape(v, (-1,))
    onehot = np.zeros((positions.size, out.t.numel()), dtype=v._data.dtype)
    onehot[np.arange(positions.size), positions] = 1
    added = api.reshape(api.matmul(v, _tensor(onehot)), tuple(out.t.shape))
    out.t = api.add(out.t, api.to(added, out.t._data.dtype))


# A formula's ``grad * 2``, ``grad / n`` or ``y + 1`` is PyTorch's Scalar overload (MulBackward1,
# DivBackward1, AddBackward1), not the Tensor one a Python script's ``x * 2`` gives (MulBackward0)
_NUMBERS = frozenset((int, float, np.float32, np.float64, np.int64))


class _WrappedFloat(float):
    """A number a node saved as its input (``x * 0.5``'s 0.5): PyTorch keeps it as a wrapped 0-dim
    tensor, so the formulas' ``grad * other`` is MulBackward0, not the Scalar MulBackward1."""

    __slots__ = ()


class _WrappedInt(int):
    __slots__ = ()


def _saved_constant(v):
    c = v.__class__
    if c is float:
        return _WrappedFloat(v)
    if c is int:
        return _WrappedInt(v)
    return v


def _by_scalar(name, x, number):
    if isinstance(number, np.generic):
        number = number.item()
    return _wrap(_apply(_SCALAR_OPS[name], x.t, other=number))


class Traced:
    """A Tensor dressed as an ndarray for the table's rules (see the module docstring)."""

    __slots__ = ("t",)
    __array_priority__ = 2000

    def __init__(self, t) -> None:
        self.t = t

    # -- what rules read ------------------------------------------------------------------------
    @property
    def shape(self):
        return self.t._data.shape

    @property
    def ndim(self):
        return self.t._data.ndim

    @property
    def dtype(self):
        return self.t._data.dtype

    @property
    def size(self):
        return self.t._data.size

    @property
    def T(self):  # numpy's name
        # PyTorch's formulas transpose matrices with ``.t()`` (TBackward0)
        if self.ndim == 2:
            return _wrap(_api().t(self.t))
        return _wrap(_api().permute(self.t, *reversed(range(self.ndim))))

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return _wrap(_api().reshape(self.t, tuple(shape)))

    def sum(self, axis=None, keepdims=False, dtype=None):
        if axis is None:
            out = _api().sum(self.t)
            if keepdims:
                out = _api().reshape(out, (1,) * self.ndim)
            return _wrap(out)
        return _wrap(_api().sum(self.t, axis if isinstance(axis, int) else tuple(axis),
                                keepdim=keepdims))

    def astype(self, dtype, copy=True):
        return _wrap(_api().to(self.t, np.dtype(dtype)))

    def fused(self, op, *others, **params):
        """Apply a row of the table to self and others: a fused backward op (``tanh_backward``),
        or the derivative a rule names (``lgamma``'s digamma), recorded."""
        return _wrap(_apply(op, self.t, *(_tensor(o) for o in others), **params))

    def copy(self):
        return _wrap(_api().clone(self.t))

    def __getitem__(self, index):
        return _wrap(_api().getitem(self.t, _raw(index)))

    def __setitem__(self, index, value):
        # rules only write into their own copies (``g = g.copy(); g[index] = 0``)
        _api().setitem(self.t, _raw(index), _operand(value))

    # -- arithmetic -------------------------------------------------------------------------------
    def __add__(self, o):
        if o.__class__ in _NUMBERS and self.t._data.dtype.kind == "f":
            return _by_scalar("add_scalar", self, o)
        return _binary(_api().add)(self, o)

    def __radd__(self, o):
        if o.__class__ in _NUMBERS and self.t._data.dtype.kind == "f":
            return _by_scalar("add_scalar", self, o)
        return _binary(_api().add)(o, self)

    def __sub__(self, o):
        return _binary(_api().sub)(self, o)

    def __rsub__(self, o):
        return _binary(_api().sub)(o, self)

    def __mul__(self, o):
        if o.__class__ in _NUMBERS and self.t._data.dtype.kind == "f":
            return _by_scalar("mul_scalar", self, o)
        return _binary(_api().mul)(self, o)

    def __rmul__(self, o):
        if o.__class__ in _NUMBERS and self.t._data.dtype.kind == "f":
            return _by_scalar("mul_scalar", self, o)
        return _binary(_api().mul)(o, self)

    def __truediv__(self, o):
        if o.__class__ in _NUMBERS and self.t._data.dtype.kind == "f":
            return _by_scalar("div_scalar", self, o)
        return _binary(_api().div)(self, o)

    def __rtruediv__(self, o):
        return _binary(_api().div)(o, self)

    def __pow__(self, o):
        return _binary(_api().pow)(self, o)

    def __rpow__(self, o):
        return _binary(_api().pow)(o, self)

    def __matmul__(self, o):
        return _wrap(_api().matmul(self.t, _tensor(o)))

    def __rmatmul__(self, o):
        return _wrap(_api().matmul(_tensor(o), self.t))

    def __neg__(self):
        return _wrap(_api().neg(self.t))

    # masks are constants: comparisons give plain boolean arrays
    def __gt__(self, o):
        return self.t._data > _raw(o)

    def __ge__(self, o):
        return self.t._data >= _raw(o)

    def __lt__(self, o):
        return self.t._data < _raw(o)

    def __le__(self, o):
        return self.t._data <= _raw(o)

    def __eq__(self, o):
        return self.t._data == _raw(o)

    def __ne__(self, o):
        return self.t._data != _raw(o)

    __hash__ = object.__hash__

    # -- numpy's protocols ------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs:
            if ufunc in _CONSTANT_UFUNCS:
                return ufunc(*(_raw(i) for i in inputs))
            fn = _UFUNCS.get(ufunc)
            if fn is not None:
                return _wrap(fn(*(_operand(i) for i in inputs)))
        if method == "outer" and ufunc is np.multiply:
            a, b = (_tensor(i) for i in inputs)
            api = _api()
            a = api.reshape(a, tuple(a.shape) + (1,) * b.ndim)
            return _wrap(api.mul(a, b))
        if method == "at" and ufunc is np.add and isinstance(inputs[0], Traced):
            out, index, values = inputs
            flat = np.arange(out.size).reshape(out.shape)[_raw(index)]
            values = _tensor(values)
            flat = np.broadcast_to(flat, np.broadcast_shapes(flat.shape, values._data.shape))
            if values.ndim and tuple(values.shape) != flat.shape:
                values = _api().expand(values, *flat.shape)
            _scatter_add(out, flat, values)
            return None
        raise NotImplementedError(
            f"create_graph=True: a gradient rule calls numpy.{ufunc.__name__}"
            f"{'' if method == '__call__' else '.' + method}, which gradstep cannot differentiate"
        )

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is None:
            raise NotImplementedError(
                f"create_graph=True: a gradient rule calls numpy.{func.__name__}, which gradstep "
                "cannot differentiate"
            )
        return handler(*args, **kwargs)


def _zeros_like(x, dtype=None, shape=None):
    from ..tensor import Tensor

    shape = x.shape if shape is None else shape
    return _wrap(Tensor._wrap(np.zeros(shape, dtype=x.dtype if dtype is None else dtype)))


def _full_like(x, value, dtype=None):
    from ..tensor import Tensor

    return _wrap(Tensor._wrap(np.full(x.shape, value, dtype=x.dtype if dtype is None else dtype)))


def _where(cond, a, b):
    api = _api()
    return _wrap(api.where(_tensor(_raw(cond)), _operand(a), _operand(b)))


def _broadcast_to(x, shape):
    t = _tensor(x)
    return _wrap(_api().expand(t, *shape)) if tuple(t.shape) != tuple(shape) else _wrap(t)


def _put_along_axis(out, indices, values, axis):
    if not isinstance(out, Traced):
        raise NotImplementedError(
            "create_graph=True: a gradient rule puts values into a plain numpy buffer, which "
            "gradstep cannot differentiate"
        )
    positions = np.take_along_axis(np.arange(out.size).reshape(out.shape), indices, axis)
    values = _tensor(values)
    if tuple(values.shape) != positions.shape:
        values = _api().expand(values, *positions.shape)
    # the rules put into fresh zeros, where adding is putting
    _scatter_add(out, positions, values)


def _expand_dims(x, axis):
    t = _tensor(x)
    for d in sorted(axis) if isinstance(axis, tuple) else (axis,):
        t = _api().unsqueeze(t, d)
    return _wrap(t)


def _take_along_axis(x, indices, axis):
    positions = np.take_along_axis(np.arange(x.size).reshape(x.shape), indices, axis)
    return _wrap(_api().getitem(_api().reshape(x.t, (-1,)), positions))


def _take(x, index, axis=None):
    if axis is None:
        return _wrap(_api().getitem(_api().reshape(x.t, (-1,)), index))
    return x[(slice(None),) * (axis % x.ndim) + (index,)]


def _sum(x, axis=None, dtype=None, keepdims=False):
    return x.sum(axis=axis, keepdims=keepdims)


def _mean(x, axis=None, dtype=None, keepdims=False):
    api = _api()
    if axis is None:
        return _wrap(api.mean(x.t))
    return _wrap(api.mean(x.t, axis if isinstance(axis, int) else tuple(axis), keepdim=keepdims))


def _moveaxis(x, source, destination):
    order = [d for d in range(x.ndim) if d != source % x.ndim]
    order.insert(destination % x.ndim, source % x.ndim)
    return _wrap(_api().permute(x.t, *order))


def _functions():
    api = _api()
    return {
        np.where: _where,
        np.broadcast_to: _broadcast_to,
        np.swapaxes: lambda x, a, b: _wrap(api.transpose(x.t, a, b)),
        np.transpose: lambda x, axes=None: _wrap(api.permute(
            x.t, *(reversed(range(x.ndim)) if axes is None else axes))),
        np.expand_dims: _expand_dims,
        np.squeeze: lambda x, axis=None: _wrap(api.squeeze(x.t, axis)),
        np.zeros_like: _zeros_like,
        np.full_like: _full_like,
        np.take: _take,
        np.take_along_axis: _take_along_axis,
        np.put_along_axis: _put_along_axis,
        np.sum: _sum,
        np.mean: _mean,
        np.moveaxis: _moveaxis,
        np.flip: lambda x, axis=None: _wrap(api.flip(x.t, axis)),
        np.concatenate: lambda xs, axis=0: _wrap(api.cat([_tensor(x) for x in xs], axis)),
        np.stack: lambda xs, axis=0: _wrap(api.stack([_tensor(x) for x in xs], axis)),
        np.dot: lambda a, b: _wrap(api.matmul(_tensor(a), _tensor(b))),
    }


def _ufuncs():
    api = _api()
    return {
        np.add: api.add, np.subtract: api.sub, np.multiply: api.mul, np.true_divide: api.div,
        np.negative: api.neg, np.power: api.pow, np.exp: api.exp, np.log: api.log,
        np.sin: api.sin, np.cos: api.cos, np.tanh: api.tanh, np.sqrt: api.sqrt,
        np.absolute: api.abs, np.maximum: api.maximum, np.minimum: api.minimum,
        np.reciprocal: api.reciprocal, np.matmul: api.matmul,
        np.sinh: api.sinh, np.cosh: api.cosh,
    }


# evaluated on plain values: signs, roundings and comparisons are constants of the formulas
_CONSTANT_UFUNCS = {
    np.sign, np.floor, np.ceil, np.trunc, np.floor_divide, np.greater, np.greater_equal,
    np.less, np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or,
    np.logical_not, np.isnan, np.isfinite, np.isinf,
}
_UFUNCS: dict = {}
_FUNCTIONS: dict = {}
_SCALAR_OPS: dict = {}
_apply = None  # ops.dispatch.apply (a circular import), bound by _install


def _install() -> None:
    global _apply
    if not _UFUNCS:
        from ..ops.dispatch import apply
        from ..ops.table import OPS

        _apply = apply
        _SCALAR_OPS.update((n, OPS[n]) for n in ("mul_scalar", "div_scalar", "add_scalar"))
        _UFUNCS.update(_ufuncs())
        _FUNCTIONS.update(_functions())


# -- one node's backward on Tensors ---------------------------------------------------------------

def _reduce_to(g, shape, dtype):
    """``node._reduce_to`` on Tensors: sum a broadcast gradient back down to ``shape``."""
    api = _api()
    if tuple(g.shape) != tuple(shape):
        extra = g.ndim - len(shape)
        axes = tuple(range(extra)) + tuple(
            i + extra for i, n in enumerate(shape) if n == 1 and g.shape[i + extra] != 1)
        if axes:
            g = api.sum(g, axes, keepdim=True)
        if tuple(g.shape) != tuple(shape):
            g = api.reshape(g, tuple(shape)) if g.numel() == int(np.prod(shape)) else api.expand(
                g, *shape)
    if dtype is not None and g._data.dtype != dtype:
        g = api.to(g, dtype)
    return g


def _output_of(node):
    """The saved output as PyTorch unpacks it: a tensor whose grad_fn is the node itself."""
    from ..tensor import Tensor

    t = Tensor._wrap(node.ans)
    t.grad_fn = node
    t._requires_grad = True
    return t


def apply_differentiable(node, grads):
    """The node's gradients for its inputs, computed with recorded ops (Tensors in, out)."""
    _install()
    node.check_saved()  # PyTorch's errors for freed or modified saved values
    traced = getattr(node, "apply_traced", None)
    if traced is not None:  # a node with several outputs (UnbindBackward0) does its own
        return traced(grads)
    n = len(node.next_functions)
    if grads[0] is None:  # nothing arrived (a hook returned None for it): nothing flows on
        return [None] * n
    g = Traced(grads[0])
    saved = node.saved
    # saved inputs are Tensors (traced, so the graph reaches them) or constants kept as arrays
    args = (None,) * n if not saved else tuple(
        Traced(t) if hasattr(t, "_data") else _saved_constant(t) for t in saved)
    ans = None if node.ans is None else Traced(_output_of(node))
    out = []
    for i, (fn, _) in enumerate(node.next_functions):
        if fn is None:
            out.append(None)
            continue
        gi = node.op.vjps[i](g, ans, *args, **node.params)
        shape, dtype = node.input_meta[i]
        out.append(_reduce_to(_tensor(gi), shape, dtype))
    return out


# -- the recorded backward pass: the scheduler's arithmetic on Tensors ----------------------------

class TracedArithmetic:
    """The scheduler's arithmetic for ``create_graph=True`` (see ``scheduler.py``): gradients are
    Tensors, nodes run their rules on them under grad mode, so the pass records its own graph."""

    __slots__ = ()

    traced = True
    grad_mode = True
    apply = staticmethod(apply_differentiable)
    add = staticmethod(operator.add)  # sums of gradients are recorded (AddBackward0)

    @staticmethod
    def share(g) -> None:
        pass  # version counters are the Tensors' own

    @staticmethod
    def version(g) -> int:
        return 0

    @staticmethod
    def to_hook(g):
        return g

    @staticmethod
    def from_hook(result):
        return result

    @staticmethod
    def retain(t, g) -> None:
        # PyTorch's retain_grad hook under grad mode: a clone (CloneBackward0) the first time,
        # then ``grad + new`` out of place
        t._grad = _api().clone(g) if t._grad is None else t._grad + g

    @staticmethod
    def accumulate(leaf, g):
        """With create_graph, ``.grad`` keeps the graph: a copy of the gradient, or the sum (out of
        place) with what was there."""
        if leaf._grad is None:
            # PyTorch's AccumulateGrad copies under grad mode: ``new_empty_strided(...).copy_(g)``,
            # a CopyBackwards node at version 1 (later sums are out of place: version 0)
            from ..tensor import Tensor
            from .inplace import copy_from

            new = Tensor._wrap(np.empty_like(leaf._data))
            leaf._grad = copy_from(new, g)
        else:
            leaf._grad = leaf._grad + g
        if hub.active:
            hub.emit(GRAD_ACCUMULATED, tensor=leaf, contribution=g._data)
        return [(leaf, g)]


TRACED = TracedArithmetic()


def backward_graph_steps(roots, root_grads, retain_graph=True, capture=None, targets=None,
                         steps=True):
    """As ``backward.backward_steps`` (same scheduler, same order, same steps), with gradients as
    Tensors that record their own graph. ``retain_graph`` defaults to True: create_graph implies
    it, as in PyTorch."""
    _install()
    return execute(roots, root_grads, TRACED, retain_graph, capture, targets, steps)
