"""The functions users call (``torch.add``, ``tensor.sum(dim=1)``, ``x[0]``...): argument handling
in PyTorch's spelling, choosing the row of the op table to run. No gradient math lives here."""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..autograd.grad_mode import state as grad_state
from ..dtypes import c_type_name as _c_type_name
from ..dtypes import scalar_type_name as _scalar_type_name
from ..dtypes import tensor_type_name as _tensor_type_name
from .dispatch import apply, apply_variadic, edge
from .table import NODE_OPS as _NODE_OPS
from .table import OPS
from .table import spellings as _spellings

_T = None  # the Tensor class, set by install_methods
_TT: set = set()  # Tensor and its subclasses (``cls in _TT``: isinstance without the metaclass's
# slow path), set by install_methods
_ADD, _SUB, _MUL, _DIV = OPS["add"], OPS["sub"], OPS["mul"], OPS["div"]
_MM, _SUM = OPS["mm"], OPS["sum"]


def _tensor(x):
    return x if isinstance(x, _T) else None


def _as_tensor_arg(x):
    """Tensors pass through; numpy arrays and lists become constant tensors; scalars stay
    scalars."""
    cls = x.__class__
    if cls is _T or cls is float or cls is int or cls in _TT:  # the common cases first
        return x
    if isinstance(x, _T) or isinstance(x, (bool, numbers.Number)) and not isinstance(x, np.ndarray):
        return x
    from ..creation import tensor

    return tensor(x)


def _norm_dim(dim, ndim):
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _norm_dims(dim, ndim):
    if isinstance(dim, (tuple, list)):
        dims = tuple(_norm_dim(d, ndim) for d in dim)
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return dims
    return _norm_dim(dim, ndim)


def _shape_arg(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def _numpy_kw(fn):
    """``fn`` also taking numpy's ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``, as
    PyTorch's argument parser does for every native function with those parameters."""
    import functools
    import inspect

    params = inspect.signature(fn).parameters
    has_dim, has_keepdim = "dim" in params, "keepdim" in params

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if kw:
            if has_dim and "axis" in kw and "axis" not in params:
                if "dim" in kw:
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument 'axis'")
                kw["dim"] = kw.pop("axis")
            if has_keepdim and "keepdims" in kw:
                if "keepdim" in kw:
                    raise TypeError(
                        f"{fn.__name__}() got an unexpected keyword argument 'keepdims'")
                kw["keepdim"] = kw.pop("keepdims")
        return fn(*args, **kw)

    return wrapper


# -- out= ------------------------------------------------------------------------------------------

def _can_cast(src, dst) -> bool:
    """PyTorch's ``canCast``: no floating -> integral, no non-bool -> bool."""
    if src.kind == "f" and dst.kind in "iub":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _requires_grad_in(args) -> bool:
    for a in args:
        if isinstance(a, (list, tuple)):
            if _requires_grad_in(a):
                return True
        elif isinstance(a, _T) and a._requires_grad:
            return True
    return False


def write_out(name, result, out, *, exact=None, warn=True):
    """``out=``: ``result`` written into ``out`` (resized to its shape, with PyTorch's warning when
    ``out`` had elements), ``out``'s version bumped; ``out`` returned."""
    import warnings

    if not isinstance(out, _T):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    src, dst = result._data.dtype, out._data.dtype
    if exact == "dot" and src != dst:
        raise RuntimeError(f"result dtype {_scalar_type_name(dst)} does not match input dtype "
                           f"{_scalar_type_name(src)}")
    if exact == "mm" and src != dst:
        raise RuntimeError(f"Expected out tensor to have dtype {_c_type_name(src)}, but got "
                           f"{_c_type_name(dst)} instead")
    if exact != "sum" and not _can_cast(src, dst):  # sum casts into any out
        if exact == "cat":
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{_scalar_type_name(dst)}")
        raise RuntimeError(f"result type {_scalar_type_name(src)} can't be cast to the desired "
                           f"output type {_scalar_type_name(dst)}")
    if out._data.shape == result._data.shape:
        out._data[...] = result._data
    else:
        if warn and out._data.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"[{', '.join(map(str, out._data.shape))}], which does not match the required "
                f"output shape [{', '.join(map(str, result._data.shape))}]. This behavior is "
                "deprecated, and in a future PyTorch release outputs will not be resized unless "
                "they have zero elements. You can explicitly reuse an out tensor t by resizing "
                "it, inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._data = result._data.astype(dst, copy=True)
    out._version.value += 1
    return out


def _out_call(name, fn, args, kw, out, exact=None):
    """``fn(*args, **kw)`` written into ``out``: PyTorch refuses it when a gradient would be
    needed (an input or ``out`` requires grad, grad mode on)."""
    if grad_state.enabled and (_requires_grad_in(args) or _requires_grad_in(kw.values())
                               or (isinstance(out, _T) and out._requires_grad)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.")
    from ..autograd.grad_mode import no_grad

    with no_grad():
        result = fn(*args, **kw)
    return write_out(name, result, out, exact=exact)


def _out_kw(fn, exact=None):
    """``fn`` also taking ``out=`` (the functions of ``torch``, not the methods)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kw):
        if out is None:
            return fn(*args, **kw)
        return _out_call(fn.__name__, fn, args, kw, out, exact)

    return wrapper


# -- arithmetic ------------------------------------------------------------------------------------

def _check_broadcast(a, b):
    sa = a.shape if isinstance(a, _T) else ()
    sb = b.shape if isinstance(b, _T) else ()
    for i, (m, n) in enumerate(zip(reversed(sa), reversed(sb))):
        if m != n and m != 1 and n != 1:
            dim = builtins.max(len(sa), len(sb)) - 1 - i
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                f"non-singleton dimension {dim}"
            )


def add(input, other, *, alpha=1):
    oc = other.__class__
    if input.__class__ in _TT and (oc in _TT or oc is float or oc is int) and alpha == 1:
        return apply(_ADD, input, other)  # the common case, before the general handling
    return _add_sub(_ADD, input, other, alpha)


def sub(input, other, *, alpha=1):
    oc = other.__class__
    if input.__class__ in _TT and (oc in _TT or oc is float or oc is int) and alpha == 1:
        return apply(_SUB, input, other)  # the common case, before the general handling
    return _add_sub(_SUB, input, other, alpha)


def _add_sub(op, input, other, alpha):
    """add/sub past their common case: lists and arrays as tensors, a number first, ``alpha``."""
    input, other = _as_tensor_arg(input), _as_tensor_arg(other)
    if not isinstance(input, _T):
        if op is _SUB:
            return rsub(other, input)
        input, other = other, input
    return apply(op, input, other, alpha=alpha) if alpha != 1 else apply(op, input, other)


def rsub(input, other, *, alpha=1):
    if isinstance(other, _T):
        params = {"alpha": alpha} if alpha != 1 else _EMPTY
        return apply(OPS["rsub_tensor"], input, other, **params)
    return apply(OPS["rsub"], input, other)


def mul(input, other):
    oc = other.__class__
    if input.__class__ in _TT and (oc in _TT or oc is float or oc is int):
        return apply(_MUL, input, other)  # the common case, before the general handling
    input, other = _as_tensor_arg(input), _as_tensor_arg(other)
    if not isinstance(input, _T):
        input, other = other, input
    # A broadcasting mismatch surfaces from numpy and dispatch words it as PyTorch does.
    return apply(OPS["mul"], input, other)


def div(input, other, *, rounding_mode=None):
    oc = other.__class__
    if (rounding_mode is None and input.__class__ in _TT
            and (oc in _TT or oc is float or oc is int)):
        return apply(_DIV, input, other)  # the common case, before the general handling
    input, other = _as_tensor_arg(input), _as_tensor_arg(other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        q = div(input, other)
        return q.trunc() if hasattr(q, "trunc") else q
    if not isinstance(input, _T):
        # PyTorch computes ``2 / x`` as ``x.reciprocal() * 2``.
        return mul(apply(OPS["reciprocal"], other), input)
    return apply(OPS["div"], input, other)


true_divide = divide = div
multiply = mul
subtract = sub


def pow(input, exponent):
    # ``cls in _TT``: isinstance without the metaclass's slow path for a number exponent
    if input.__class__ in _TT:
        if exponent.__class__ in _TT:
            _check_broadcast(input, exponent)
            return apply(OPS["pow_tensor"], input, exponent)
        return apply(OPS["pow"], _promoted_for(input, exponent), exponent=exponent)
    return apply(OPS["rpow"], _promoted_for(exponent, input), base=input)


def _promoted_for(input, *scalars):
    """``input`` cast to the result type it makes with Python-number arguments that the op takes
    as parameters (``int_tensor ** 0.5`` and ``int_tensor.clamp(0.5)`` compute in float32)."""
    if input._data.dtype.kind == "f":
        # a floating tensor keeps its dtype with Python ints and floats (weak scalars)
        for s_ in scalars:
            c = s_.__class__
            if not (c is float or c is int or s_ is None):
                break
        else:
            return input
    from ..dtypes import result_type

    dt = result_type(input._data, *(s for s in scalars if s is not None))
    return input if dt == input._data.dtype else to(input, dt)


# -- the functions made from the rows (``make=`` in the op table) ---------------------------------

def _unary(op):
    def fn(input, *, out=None):
        if out is not None:
            return _out_call(fn.__name__, fn, (input,), {}, out)
        return apply(op, input)

    return fn


def _binary(op):
    def fn(input, other, *, out=None):
        if out is not None:
            return _out_call(fn.__name__, fn, (input, other), {}, out)
        return apply(op, _as_tensor_arg(input), _as_tensor_arg(other))

    return fn


def _unary_inplace(op):
    def method(self):
        return inplace(op.name, self)

    return method


_MAKERS = {"unary": _unary, "binary": _binary}
_MADE: dict = {}  # {row name: the function made from it}, bound below under its torch.x spellings
for _op in OPS.values():
    if _op.make is not None:
        _fn = _MADE[_op.name] = _MAKERS[_op.make](_op)
        # (``torch.x_``, the in-place method as a function, is made below)
        _names = [s_[len("torch."):] for s_ in _op.api
                  if s_.startswith("torch.") and not s_.endswith("_")]
        _fn.__name__ = _fn.__qualname__ = _names[0] if _names else _op.name
        for _name in _names:
            globals()[_name] = _fn
del _op, _fn, _names, _name


def round(input, decimals=0):
    return apply(OPS["round"], input)


def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, _T) or isinstance(max, _T):
        # one ClampBackward0 with an edge per bound (a missing bound is a constant infinity)
        lo = -np.inf if min is None else _as_tensor_arg(min)
        hi = np.inf if max is None else _as_tensor_arg(max)
        return apply(OPS["clamp_tensor"], input, lo, hi)
    return apply(OPS["clamp"], _promoted_for(input, min, max), min=min, max=max)


clip = clamp


def maximum(input, other):
    return apply(OPS["maximum"], input, other)


def minimum(input, other):
    return apply(OPS["minimum"], input, other)


def where(condition, input=None, other=None):
    if input is None:
        return tuple(_T._wrap(i) for i in np.nonzero(condition._data))
    input, other = _as_tensor_arg(input), _as_tensor_arg(other)
    _check_broadcast(input, other)
    _check_broadcast(condition, input)
    _check_broadcast(condition, other)
    return apply(OPS["where"], condition, input, other)


def _scalar_or_tensor(name):
    """Ops with a Scalar overload (one edge) and a Tensor overload (two): ``x % 2``, ``x % y``."""

    def fn(input, other):
        input, other = _as_tensor_arg(input), _as_tensor_arg(other)
        if isinstance(input, _T) and not isinstance(other, _T):
            return apply(OPS[name], input, other)
        return apply(OPS[name + "_tensor"], input, other)

    fn.__name__ = name
    return fn


floor_divide = _scalar_or_tensor("floor_divide")
remainder = _scalar_or_tensor("remainder")
fmod = _scalar_or_tensor("fmod")


def square(input):
    return pow(input, 2)


def equal(input, other) -> bool:
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _T._wrap(np.isclose(input._data, _data_of(other), rtol=rtol, atol=atol,
                               equal_nan=equal_nan))


def _data_of(x):
    return x._data if isinstance(x, _T) else x


# -- reductions ------------------------------------------------------------------------------------

def _reduction_dtype(dtype):
    # the dtype travels with the node: PyTorch's Sum/MeanBackward casts the gradient back itself
    if dtype is None:
        return _EMPTY  # before the import: an import statement costs more than this call
    from ..dtypes import to_numpy_dtype

    return {"dtype": to_numpy_dtype(dtype)}


_EMPTY: dict = {}


_UNSET = object()  # an argument not given (PyTorch tells ``dim=None`` from no dim at all)


def _keepdim_without_dim(name, method, dtype):
    """PyTorch's TypeError for ``keepdim`` given without ``dim`` (no overload takes it)."""
    if dtype is not None and (name == "sum" or method):
        return TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    got = ("" if method else "Tensor, ") + ("dtype=torch.dtype, " if dtype is not None else "")
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}keepdim=bool"
        f"{', ' if method else ''}), but expected one of:"
    )


def sum(input, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    if dim is _UNSET and keepdim is _UNSET and dtype is None and axis is None:
        return apply(_SUM, input, shape=input._data.shape)  # the common case
    return _sum(input, dim, keepdim, dtype, axis, False)


def _sum_method(self, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    if dim is _UNSET and keepdim is _UNSET and dtype is None and axis is None:
        return apply(_SUM, self, shape=self._data.shape)  # the common case
    return _sum(self, dim, keepdim, dtype, axis, True)


def _reduction_dim(name, dim, keepdim, dtype, axis, method):
    """sum's and mean's ``dim`` (``axis`` is numpy's spelling) and ``keepdim``, as PyTorch
    reads them: ``keepdim`` without a ``dim`` matches none of their overloads."""
    if dim is _UNSET:
        dim = _UNSET if axis is None else axis
        if dim is _UNSET and keepdim is not _UNSET:
            raise _keepdim_without_dim(name, method, dtype)
    return dim, (False if keepdim is _UNSET else keepdim)


def _sum(input, dim, keepdim, dtype, axis, method):
    dim, keepdim = _reduction_dim("sum", dim, keepdim, dtype, axis, method)
    extra = _reduction_dtype(dtype)
    if dim is _UNSET:
        return apply(OPS["sum"], input, shape=input._data.shape, **extra)
    if dim is None:  # an explicit None: every dimension, through the dim overload (SumBackward1)
        return apply(OPS["sum_dim"], input, dim=None, keepdim=keepdim, shape=input._data.shape,
                     **extra)
    dims = _norm_dims(tuple(dim) if isinstance(dim, list) else dim, input.ndim)
    if input.ndim == 0:
        dims = None
    elif dims == ():
        dims = tuple(range(input.ndim))  # PyTorch: an empty dim list reduces every dimension
    return apply(OPS["sum_dim"], input, dim=dims, keepdim=keepdim, shape=input._data.shape,
                 **extra)


def mean(input, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    return _mean(input, dim, keepdim, dtype, axis, False)


def _mean_method(self, dim=_UNSET, keepdim=_UNSET, *, dtype=None, axis=None):
    return _mean(self, dim, keepdim, dtype, axis, True)


def _mean(input, dim, keepdim, dtype, axis, method):
    dim, keepdim = _reduction_dim("mean", dim, keepdim, dtype, axis, method)
    extra = _reduction_dtype(dtype)
    kind = extra["dtype"].kind if extra else input._data.dtype.kind
    if kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_dtype_title(input)}"
        )
    if dim is _UNSET:
        return apply(OPS["mean"], input, shape=input._data.shape, **extra)
    if dim is None:  # an explicit None: every dimension, through the dim overload (MeanBackward1)
        return apply(OPS["mean_dim"], input, dim=None, keepdim=keepdim, shape=input._data.shape,
                     **extra)
    dims = _norm_dims(tuple(dim) if isinstance(dim, list) else dim, input.ndim)
    return apply(OPS["mean_dim"], input, dim=dims, keepdim=keepdim, shape=input._data.shape,
                 **extra)


def _dtype_title(t) -> str:
    """PyTorch's ScalarType name of a tensor's dtype (``Float``, ``Long``...)."""
    return _scalar_type_name(t._data.dtype)


class _MinMax(tuple):
    """``torch.return_types.max``: a (values, indices) pair with names."""

    _name = "max"

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class _Max(_MinMax):
    _name = "max"


class _Min(_MinMax):
    _name = "min"


def _minmax(which, input, dim=None, keepdim=False):
    if isinstance(dim, _T):
        return maximum(input, dim) if which == "max" else minimum(input, dim)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return apply(OPS[which], input)
    d = _norm_dim(dim, input.ndim)
    values = apply(OPS[which + "_dim"], input, dim=d, keepdim=keepdim)
    arg = np.argmax if which == "max" else np.argmin
    indices = _T._wrap(np.asarray(arg(input._data, axis=d, keepdims=keepdim), dtype=np.int64))
    return (_Max if which == "max" else _Min)(values, indices)


def max(input, dim=None, keepdim=False):
    return _minmax("max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    return _minmax("min", input, dim, keepdim)


def amax(input, dim=(), keepdim=False):
    return _amax_amin("amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _amax_amin("amin", input, dim, keepdim)


def _amax_amin(name, input, dim, keepdim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(sorted({_norm_dim(d, input.ndim) for d in dims})) or tuple(range(input.ndim))
    return apply(OPS[name], input, dim=dims if input.ndim else None, keepdim=keepdim)


def argmax(input, dim=None, keepdim=False):
    d = None if dim is None else _norm_dim(dim, input.ndim)
    return apply(OPS["argmax"], input, dim=d, keepdim=keepdim)


def argmin(input, dim=None, keepdim=False):
    d = None if dim is None else _norm_dim(dim, input.ndim)
    return apply(OPS["argmin"], input, dim=d, keepdim=keepdim)


def _no_kernel(name, input, dim):
    """PyTorch's error for a softmax of a non-floating tensor (it has no such kernel)."""
    last = "lastdim_" if dim == builtins.max(input.ndim, 1) - 1 else ""
    return NotImplementedError(
        f'"{name}_{last}kernel_impl" not implemented for \'{_dtype_title(input)}\''
    )


def _softmax_kind(name, input, dim, dtype):
    """softmax / log_softmax: the row ``name`` over ``dim`` (floating input only, as PyTorch)."""
    if dtype is not None:
        input = input.to(dtype)
    d = _norm_dim(dim, input.ndim)
    if input._data.dtype.kind != "f":
        if input._data.size:
            raise _no_kernel(name, input, d)
        return _T._wrap(np.empty_like(input._data))  # nothing to compute: no kernel is asked
    return apply(OPS[name], input, dim=d)


def softmax(input, dim=None, dtype=None):
    return _softmax_kind("softmax", input, dim, dtype)


def log_softmax(input, dim=None, dtype=None):
    return _softmax_kind("log_softmax", input, dim, dtype)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """``torch.norm`` / ``Tensor.norm`` of a vector (LinalgVectorNormBackward0, as PyTorch)."""
    p = 2 if p in ("fro", None) else p
    if isinstance(p, str) or p <= 0:
        raise NotImplementedError(f"norm with p={p!r} is not supported by the engine")
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{_dtype_title(input)}"
        )
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else dim
        dim = tuple(sorted({_norm_dim(d, input.ndim) for d in dims}))
    return apply(OPS["vector_norm"], input, ord=p, dim=dim, keepdim=keepdim)


# -- prod, var, std, cumsum ------------------------------------------------------------------------

def _invalid_combination(name, *args):
    got = ", ".join(type(a).__name__ if not isinstance(a, _T) else "Tensor" for a in args)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
        "of:"
    )


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _prod(input, dim, keepdim, dtype, method=False)


def _prod_method(self, dim=None, keepdim=False, *, dtype=None):
    return _prod(self, dim, keepdim, dtype, method=True)


def _prod(input, dim, keepdim, dtype, method):
    extra = _reduction_dtype(dtype)
    if dim is None:
        return apply(OPS["prod"], input, **extra)
    if not _is_int(dim):
        raise _invalid_combination("prod", *((dim,) if method else (input, dim)))
    d = _norm_dim(int(dim), input.ndim)
    return apply(OPS["prod_dim"], input, dim=d if input.ndim else None, keepdim=keepdim,
                 **extra)


def _var_std(name, input, dim, unbiased, keepdim, correction, method=False):
    dim, correction = _var_std_args(name, input, dim, unbiased, correction, method)
    return apply(OPS[name], input, dim=dim, correction=correction, keepdim=keepdim)


def _var_std_args(name, input, dim, unbiased, correction, method=False):
    """var/std's (dim, correction) as PyTorch parses them (dim a sorted tuple or None)."""
    if isinstance(dim, bool):  # ``x.var(False)``: the unbiased overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments")
    if correction is None:
        correction = 0 if unbiased is False else 1
    if dim is not None and not (_is_int(dim) or isinstance(dim, (list, tuple))):
        raise _invalid_combination(name, *((dim,) if method else (input, dim)))
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name if name.endswith('_mean') else 'std and var'} only support "
                           "floating point and complex dtypes")
    if dim is not None:
        if isinstance(dim, (list, tuple)):
            dims = _norm_dims(tuple(dim), input.ndim)
        else:
            dims = (_norm_dim(int(dim), input.ndim),)
        dim = tuple(sorted(dims)) if input.ndim else None
    n = input._data.size if not dim else int(np.prod([input.shape[d] for d in dim]))
    if n - correction <= 0:
        import warnings

        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning, stacklevel=4,
        )
    return dim, correction


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std("var", input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std("std", input, dim, unbiased, keepdim, correction)


def _var_method(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std("var", self, dim, unbiased, keepdim, correction, method=True)


def _std_method(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_std("std", self, dim, unbiased, keepdim, correction, method=True)


_NO_DIM = object()


def cumsum(input, dim=_NO_DIM, *, dtype=None):
    return _cumsum(input, dim, dtype, method=False)


def _cumsum_method(self, dim=_NO_DIM, *, dtype=None):
    return _cumsum(self, dim, dtype, method=True)


def _cumsum(input, dim, dtype, method):
    if dim is _NO_DIM:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    if not _is_int(dim):
        raise TypeError(f"cumsum(): argument 'dim' (position {1 if method else 2}) must be int, "
                        f"not {type(dim).__name__}")
    return apply(OPS["cumsum"], input, dim=_norm_dim(dim, input.ndim), **_reduction_dtype(dtype))


for _fn, _name in ((_prod_method, "prod"), (_var_method, "var"), (_std_method, "std"),
                   (_cumsum_method, "cumsum")):
    _fn.__name__ = _fn.__qualname__ = _name  # as tracebacks and the debugger show the method
del _fn, _name


# -- matrix ----------------------------------------------------------------------------------------

def _mat_error(a, b):
    sa, sb = a.shape, b.shape
    if a.ndim == 2 and b.ndim == 2:
        return RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})"
        )
    if a.ndim == 1 and b.ndim == 1:
        return RuntimeError(
            f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the "
            f"same number of elements, but got {sa[0]} and {sb[0]} elements respectively"
        )
    if a.ndim == 1 and b.ndim == 2:
        return RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {sb[0]}x{sb[1]})"
        )
    return RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec ({sb[0]})")


# The checked kernels, in PyTorch's order of checks (shapes, then dtypes: no promotion).

def _mm_apply(op, *args):
    """mm/addmm of ``args`` (the two matrices last), telling the rules which matrices are
    column-major (PyTorch lays their gradients out the same way) only when one is."""
    a, b = args[-2]._data, args[-1]._data
    ca = a.strides[0] == a.itemsize and a.strides[1] == a.shape[0] * a.itemsize
    cb = b.strides[0] == b.itemsize and b.strides[1] == b.shape[0] * b.itemsize
    if ca or cb:
        return apply(op, *args, cols=(ca, cb))
    return apply(op, *args)


def _mm(a, b):
    if a.shape[1] != b.shape[0]:
        raise _mat_error(a, b)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_c_type_name(a._data.dtype)} != {_c_type_name(b._data.dtype)}"
        )
    return _mm_apply(_MM, a, b)


def _mv(mat, vec):
    if mat.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise _mat_error(mat, vec)
    if mat._data.dtype != vec._data.dtype:
        v, m = _dtype_title(vec), _dtype_title(mat)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}"
        )
    return apply(OPS["mv"], mat, vec)


def _dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{_dtype_title(a)} and {_dtype_title(b)}"
        )
    if a.shape[0] != b.shape[0]:
        raise _mat_error(a, b)
    return apply(OPS["dot"], a, b)


def _bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if (b.shape[0], b.shape[1]) != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
            f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype_title(a)} but found {_dtype_title(b)}"
        )
    if a._data.dtype == np.bool_:
        raise NotImplementedError('"bmm" not implemented for \'Bool\'')
    return apply(OPS["bmm"], a, b)


def _broadcast_batch(sa, sb):
    """``infer_size`` of two batch shapes, with PyTorch's message."""
    n = builtins.max(len(sa), len(sb))
    out = []
    for i in range(n):
        m = sa[i - n + len(sa)] if i - n + len(sa) >= 0 else 1
        k = sb[i - n + len(sb)] if i - n + len(sb) >= 0 else 1
        if m != k and m != 1 and k != 1:
            raise RuntimeError(
                f"The size of tensor a ({m}) must match the size of tensor b ({k}) at "
                f"non-singleton dimension {i}"
            )
        out.append(k if m == 1 else m)
    return tuple(out)


def matmul(input, other):
    """``a @ b`` decomposed as PyTorch's ``_matmul_impl`` does it, so the recorded nodes match:
    dot, mv, mm, a fold of the batch into mm/mv rows, or expand + bmm (each with its own checks
    and messages, as in PyTorch)."""
    if input.__class__ is _T and other.__class__ is _T:
        da_, db_ = input._data, other._data
        sa, sb = da_.shape, db_.shape
        if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and da_.dtype == db_.dtype:
            # the common case, before the general handling (a strides[0] of one element may
            # be column-major: _mm_apply tells)
            if da_.strides[0] == da_.itemsize or db_.strides[0] == db_.itemsize:
                return _mm_apply(_MM, input, other)
            return apply(_MM, input, other)
    a, b = input, other
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    da, db = a.ndim, b.ndim
    if da == 1 and db == 1:
        return _dot(a, b)
    if da == 2 and db == 1:
        return _mv(a, b)
    if da == 1 and db == 2:
        if a.shape[0] != b.shape[0]:
            raise _mat_error(a, b)
        out = squeeze(_mm(unsqueeze(a, 0), b), 0, _node="squeeze_dim4")
        out._version.value += 1  # PyTorch squeezes in place (squeeze_), bumping the version
        return out
    if da == 2 and db == 2:
        return _mm(a, b)
    if _should_fold(a, b):
        flip = db > da
        t1 = transpose(b, -1, -2) if flip else a
        t2 = (t(a) if da == 2 else a) if flip else b
        out_shape = tuple(t1.shape[:-1])
        folded = reshape(t1, (int(np.prod(out_shape)), t1.shape[-1]))
        if t2.ndim == 2:
            out = _unsafe_view(_mm(folded, t2), out_shape + (t2.shape[1],))
            return contiguous(transpose(out, -1, -2)) if flip else out
        return _unsafe_view(_mv(folded, t2), out_shape)
    n = a.shape[-2] if da > 1 else 1
    m1 = a.shape[-1]
    m2 = b.shape[-2] if db > 1 else b.shape[0]
    p = b.shape[-1] if db > 1 else 1
    if da == 3 and db == 3 and a.shape[0] != b.shape[0]:
        # a broadcast batch of one that requires grad goes through the fold instead
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(squeeze(a, 0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    batch = _broadcast_batch(tuple(a.shape[:-2]), tuple(b.shape[:-2]) if db > 1 else ())
    size = int(np.prod(batch))
    a3 = reshape(expand(a, *batch, n, m1), (size, n, m1))
    if db == 1:
        b3 = unsqueeze(reshape(expand(b, *batch, m2), (size, m2)), 2)
    else:
        b3 = reshape(expand(b, *batch, m2, p), (size, m2, p))
    out = _bmm(a3, b3)
    if db == 1:
        out = squeeze(out, -1)
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return _unsafe_view(out, out_shape)


def _should_fold(a, b) -> bool:
    """PyTorch's ``should_fold``: fold the larger operand's batch into mm/mv rows when it costs no
    copy, or when the smaller operand requires grad (a smaller tensor saved for backward)."""
    larger = a.ndim >= b.ndim
    t1 = a if larger else b
    dim_t2 = b.ndim if larger else a.ndim
    if not (t1.ndim >= 3 and dim_t2 <= 2):
        return False
    if (b if larger else a).requires_grad:
        return True
    if t1.numel() == 0:
        return True
    data = t1._data if larger else np.swapaxes(t1._data, -1, -2)
    strides = [st // data.itemsize for st in data.strides]
    shape = data.shape
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(data.ndim - 2))


def _unsafe_view(x, shape):
    return apply(OPS["reshape_copy"], x, shape=tuple(shape), src_shape=x._data.shape)


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    if input.shape[1] != mat2.shape[0] or input._data.dtype != mat2._data.dtype:
        return _mm(input, mat2)  # raises PyTorch's error
    return _mm_apply(_MM, input, mat2)


def mv(input, vec):
    return _mv(input, vec)


def dot(input, other):
    return _dot(input, other)


def bmm(input, mat2):
    return _bmm(input, mat2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    # PyTorch checks the dtypes before the shapes: nn.Linear on float64 input says so first.
    dtype2 = mat2._data.dtype
    if mat1._data.dtype != dtype2 or input._data.dtype != dtype2:
        first, role = (mat1, "mat1") if mat1._data.dtype != dtype2 else (input, "self")
        raise RuntimeError(f"{role} and mat2 must have the same dtype, but got "
                           f"{_dtype_title(first)} and {_dtype_title(mat2)}")
    if mat1.shape[1] != mat2.shape[0]:
        raise _mat_error(mat1, mat2)
    return _mm_apply(OPS["addmm"], input, mat1, mat2)


# -- shape -----------------------------------------------------------------------------------------

def _invalid_shape(shape, numel) -> str:
    return f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"


def _infer_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0 or numel % known:
            raise RuntimeError(_invalid_shape(shape, numel))
        shape[shape.index(-1)] = numel // known
    if int(np.prod(shape)) != numel:
        raise RuntimeError(_invalid_shape(shape, numel))
    return tuple(shape)


def _viewable(data, shape) -> bool:
    """Whether ``data`` can take ``shape`` without a copy (PyTorch's view rule, numpy's too)."""
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    return True


def view(input, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list)):
        return input.to(shape[0])
    target = _infer_shape(_shape_arg(shape), input.numel())
    if not input._data.flags.c_contiguous and not _viewable(input._data, target):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return apply(OPS["view"], input, shape=target, src_shape=input._data.shape)


def reshape(input, *shape):
    target = _infer_shape(_shape_arg(shape), input.numel())
    data = input._data
    if data.flags.c_contiguous:
        return apply(OPS["view"], input, shape=target, src_shape=data.shape)
    if _viewable(data, target):
        return apply(OPS["reshape_alias"], input, shape=target, src_shape=data.shape)
    # Not viewable: PyTorch clones, then views (CloneBackward0 -> UnsafeViewBackward0).
    c = apply(OPS["clone"], input)
    return apply(OPS["reshape_copy"], c, shape=target, src_shape=data.shape)


def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, 1)
    s = _norm_dim(start_dim, input.ndim)
    e = _norm_dim(end_dim, input.ndim)
    if s == e:
        return input
    shape = tuple(input.shape[:s]) + (-1,) + tuple(input.shape[e + 1:])
    return reshape(input, shape)


def transpose(input, dim0, dim1):
    d0, d1 = _norm_dim(dim0, input.ndim), _norm_dim(dim1, input.ndim)
    if input.ndim == 0:  # PyTorch allows dims 0 and -1 here (numpy's swapaxes does not)
        d0 = d1 = None
    return apply(OPS["transpose"], input, dim0=d0, dim1=d1)


swapaxes = swapdims = transpose


def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return apply(OPS["t"], input)


def permute(input, *dims):
    dims = _shape_arg(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    return apply(OPS["permute"], input, dims=tuple(_norm_dim(d, input.ndim) for d in dims))


def movedim(input, source, destination):
    """PyTorch's movedim: always one permute (PermuteBackward0), also when nothing moves."""
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({_dim_list(src)} dims) should "
            f"contain the same number of dims as destination ({_dim_list(dst)} dims)")
    n = input.ndim
    src = [_norm_dim(d, n) for d in src]
    dst = [_norm_dim(d, n) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({_dim_list(dims)})")
    order = [-1] * builtins.max(n, 1)
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o == -1 else o for o in order][:n]
    return apply(OPS["permute"], input, dims=tuple(order))


moveaxis = movedim


def _dim_list(dims) -> str:
    return f"[{', '.join(map(str, dims))}]"


def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input.ndim
    d1, d2 = _norm_dim(dim1, n), _norm_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(OPS["diagonal"], input, offset=int(offset), dim1=d1, dim2=d2,
                 shape=input._data.shape)


def squeeze(input, dim=None, _node=None):
    if dim is None:
        return apply(OPS["squeeze"], input, src_shape=input._data.shape)
    if isinstance(dim, (tuple, list)):
        dims = tuple(sorted({_norm_dim(d, input.ndim) for d in dim}))
        return apply(OPS["squeeze_dims"], input, dims=dims, src_shape=input._data.shape)
    d = _norm_dim(dim, input.ndim)
    return apply(OPS[_node or "squeeze_dim"], input, dim=d, src_shape=input._data.shape)


def unsqueeze(input, dim):
    return apply(OPS["unsqueeze"], input, dim=_norm_dim(dim, input.ndim + 1))


def expand(input, *sizes):
    sizes = _shape_arg(sizes)
    lead = len(sizes) - input.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, input.shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): "
            f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({input.ndim})"
        )
    target = tuple(
        input.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes)
    )
    for i, s in enumerate(input.shape):
        if s != 1 and s != target[i + lead]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i + lead]}) must match the existing "
                f"size ({s}) at non-singleton dimension {i + lead}.  Target sizes: "
                f"[{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, input.shape))}]"
            )
    return apply(OPS["expand"], input, shape=target)


def expand_as(input, other):
    return expand(input, *other.shape)


def clone(input, *, memory_format=None):
    return apply(OPS["clone"], input)


def contiguous(input, memory_format=None):
    if input._data.flags.c_contiguous:
        return input
    return clone(input)


def to(input, *args, **kwargs):
    from .. import dtypes as dt_mod
    from ..device import parse_to

    _, dtype, copy = parse_to(args, kwargs)  # torch's signatures; a device other than cpu raises
    if dtype is None and not copy:
        return input
    target = input._data.dtype if dtype is None else dt_mod.to_numpy_dtype(dtype)
    if target == input._data.dtype and not copy:
        return input
    return apply(OPS["to_dtype"], input, dtype=target)


def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, t_ in enumerate(tensors):
        if t_.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    d = _norm_dim(dim, tensors[0].ndim)
    first = tensors[0].shape
    for k, t_ in enumerate(tensors[1:], 1):
        if t_.ndim != len(first):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(first)} and {t_.ndim}"
            )
        for i, (m, n) in enumerate(zip(first, t_.shape)):
            if i != d and m != n:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {m} but "
                    f"got size {n} for tensor number {k} in the list."
                )
    return apply_variadic("cat", tensors, dim=d, sizes=tuple(t.shape[d] for t in tensors))


concat = concatenate = cat


def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    d = _norm_dim(dim, tensors[0].ndim + 1)  # PyTorch checks the dim before the shapes
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(
                "stack expects each tensor to be equal size, but got "
                f"[{', '.join(map(str, tensors[0].shape))}] "
                f"at entry 0 and [{', '.join(map(str, t.shape))}] at entry {i}"
            )
    return apply_variadic("stack", tensors, dim=d)


# -- indexing --------------------------------------------------------------------------------------

_UNBIND = _NODE_OPS["unbind"]


def unbind(input, dim=0):
    """The slices along ``dim``, as views recorded by one UnbindBackward0 node (output k is slice
    k): what iterating a tensor gives in PyTorch (``for row in x``, ``a, b = x``)."""
    from ..autograd.node import UnbindNode

    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _norm_dim(dim, input._data.ndim)
    lead = (slice(None),) * d
    # the Ellipsis keeps a 0-d slice a view
    pieces = [lead + (i, ...) for i in range(input._data.shape[d])]
    return _views_of(input, pieces, UnbindNode, _UNBIND, {"dim": d})


def _views_of(input, pieces, node_cls, op, params):
    """``input[piece]`` for each piece, views that one ``node_cls`` node records for all (output
    k is piece k), as PyTorch's unbind and split."""
    data = input._data
    base = input if input._base is None else input._base
    node = None
    if input._requires_grad and grad_state.enabled:
        node = node_cls(op, params, (edge(input),), ((data.shape, data.dtype),), None, None, None)
        node.num_outputs = len(pieces)
    outs = []
    for i, piece in enumerate(pieces):
        t = _T._wrap(data[piece])
        t._base = base
        t._version = input._version
        t._multi_view = True
        t._requires_grad = input._requires_grad  # also under no_grad, as PyTorch's views
        if node is not None:
            t._requires_grad = True
            t.grad_fn = node
            t._output_nr = i
        outs.append(t)
    if node is not None:
        from ..events import OP_RECORDED, hub

        if hub.active:
            for t in outs:
                hub.emit(OP_RECORDED, node=node, output=t)
    return tuple(outs)


def _to_numpy_index(i):
    if isinstance(i, _T):
        return i._data
    if isinstance(i, tuple):
        return tuple(_to_numpy_index(j) for j in i)
    if isinstance(i, list):
        return np.asarray([j._data if isinstance(j, _T) else j for j in i])
    if isinstance(i, range):  # ``x[range(n), y]``: a LongTensor index, as PyTorch reads it
        return np.asarray(i, dtype=np.int64)
    return i


def _is_int_index(i) -> bool:
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    return isinstance(i, _T) and i.ndim == 0 and i._data.dtype.kind in "iu"


def _dims_used(i) -> int:
    """How many of the indexed tensor's dimensions one index element consumes."""
    if i is None or i is Ellipsis:
        return 0
    if isinstance(i, (_T, np.ndarray, list, range)) and not _is_int_index(i):
        arr = _to_numpy_index(i)
        return arr.ndim if arr.dtype == np.bool_ else 1
    return 1


def getitem(input, index):
    """``x[index]`` in PyTorch's steps: ints select, slices slice, None unsqueezes (one view node
    each, left to right), then the tensor/list indices gather in one IndexBackward0."""
    single = not isinstance(index, tuple)
    items = (index,) if single else index
    used = builtins.sum(_dims_used(i) for i in items)
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    out = input
    dim = 0
    source_dim = 0  # the dimension of ``input`` the element indexes (for error messages)
    advanced = []  # (dim in the result so far, numpy index array)
    for i in items:
        source_dim_here = source_dim
        source_dim += _dims_used(i) if i is not Ellipsis else input.ndim - used
        if i is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif i is Ellipsis:
            dim += input.ndim - used
        elif isinstance(i, slice):
            size = out.shape[dim]
            norm = slice(*i.indices(size))
            if norm.step <= 0:
                raise ValueError("step must be greater than zero")
            full = norm.start == 0 and norm.stop == size and norm.step == 1
            if single or not full:  # ``x[:]`` alone still records a SliceBackward0
                where = (slice(None),) * dim + (norm,)
                out = apply(OPS["slice"], out, index=where, src_shape=out._data.shape)
            dim += 1
        elif _is_int_index(i):
            k = int(i)
            size = out.shape[dim]
            if not -size <= k < size:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {source_dim_here} with size {size}"
                )
            out = apply(OPS["select"], out, dim=dim, index=k % size, src_shape=out._data.shape)
        else:
            arr = _to_numpy_index(i)
            if arr.dtype.kind not in "biu":
                raise IndexError(
                    "tensors used as indices must be long, int, byte or bool tensors"
                )
            advanced.append((dim, arr))
            dim += arr.ndim if arr.dtype == np.bool_ else 1
    if advanced:
        np_index = []
        covered = 0  # result dims the numpy index covers so far (a bool mask covers its ndim)
        for d, arr in advanced:
            np_index.extend([slice(None)] * (d - covered))
            np_index.append(arr)
            covered = d + (arr.ndim if arr.dtype == np.bool_ else 1)
        np_index = tuple(np_index)
        try:
            np.empty(out.shape, dtype=np.bool_)[np_index]
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
        return apply(OPS["index"], out, index=np_index, src_shape=out._data.shape)
    if out is input:
        out = apply(OPS["alias"], input)  # ``x[...]``, ``x[:, :]``: an alias (a view)
    return out


def _written_through(index):
    """The view op PyTorch's ``x[index] = v`` writes through (named in an error), if basic."""
    parts = index if isinstance(index, tuple) else (index,)
    name = None
    for i in parts:
        if _is_int_index(i):
            name = "Select"
        elif isinstance(i, slice):
            name = "Slice"
        elif i is None:
            name = "Unsqueeze"
        elif i is not Ellipsis:
            return None  # a tensor index: index_put_ on the tensor itself
    return name


def _view_made_by_setitem(index, shape):
    """The last view PyTorch's ``x[index] = v`` makes before writing (full slices and Ellipsis
    make none), for the message naming it; None when it writes into x itself."""
    parts = index if isinstance(index, tuple) else (index,)
    name = None
    dim = 0
    known = True  # dims are counted from the left until an Ellipsis
    for i in parts:
        if i is Ellipsis:
            known = False
        elif i is None:
            name = "Unsqueeze"
        elif _is_int_index(i):
            name = "Select"
            dim += 1
        elif isinstance(i, slice):
            if known and dim < len(shape):
                full = i.indices(shape[dim]) == (0, shape[dim], 1)
            else:
                full = i == slice(None)
            if not full:
                name = "Slice"
            dim += 1
        else:
            dim += 1
    return name


def setitem(input, index, value):
    """``x[index] = value``: in place; a tensor that needs grad gets a CopySlices node."""
    if input._multi_view and grad_state.enabled and input.grad_fn is not None:
        _multi_view_error(input, _view_made_by_setitem(index, input._data.shape))
    np_index = _to_numpy_index(index)
    value_t = value if isinstance(value, _T) else None
    if value_t is not None and value_t._data.ndim:
        value_t = _fitted_to_slot(value_t, np_index, input._data)
    v = value if value_t is None else value_t._data
    needs_graph = grad_state.enabled and (
        input.requires_grad or (value_t is not None and value_t.requires_grad))
    through = _written_through(index)
    try:
        _check_inplace(input, through)
    except RuntimeError as e:
        if through is not None and str(e).startswith("a leaf"):
            # PyTorch writes basic indices through a view of the leaf: its message says so
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            ) from None
        raise
    if needs_graph:
        from ..autograd.inplace import copy_slices

        copy_slices(input, np_index, value_t, v)
        return
    input._data[np_index] = v
    input._version.value += 1


def _fitted_to_slot(value, np_index, data):
    """The value ``data[np_index] = value`` writes, as PyTorch's ``THPVariable_setitem`` makes
    it: leading size-1 dims dropped by a view (``t[i] = u``, u (1, 1), a 0-d slot); for a basic
    index (``copy_to``) a value of another shape than its slot is viewed so even without them,
    then expanded to the slot (ViewBackward0, ExpandBackward0); index_put broadcasts itself."""
    shape = value._data.shape
    lead = next((k for k, n in enumerate(shape) if n != 1), len(shape))
    parts = np_index if isinstance(np_index, tuple) else (np_index,)
    if builtins.any(isinstance(p, np.ndarray) for p in parts):
        return apply(OPS["view"], value, shape=shape[lead:], src_shape=shape) if lead else value
    slot_shape = data[np_index].shape
    if shape == slot_shape:
        return value
    value = apply(OPS["view"], value, shape=shape[lead:], src_shape=shape)
    return value if value._data.shape == slot_shape else expand(value, *slot_shape)


_NO_GRAD_VIEW = (
    "created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


def _check_inplace(t, through=None):
    """PyTorch's refusals of an in-place write into ``t`` (``through``: the view op PyTorch would
    write through for ``t[index] = v``, named in one of its messages)."""
    base = t._base
    if (grad_state.enabled and base is not None and t.grad_fn is None and base.requires_grad):
        # a view made under no_grad of a tensor that requires grad
        if through is not None:
            raise RuntimeError(f"Output 0 of {through} is a view of a view which was "
                               + _NO_GRAD_VIEW)
        raise RuntimeError("A view was " + _NO_GRAD_VIEW)
    if t._multi_view and grad_state.enabled and t.grad_fn is not None:
        _multi_view_error(t, through)
    _check_leaf_inplace(t)


def _multi_view_error(t, through):
    """PyTorch's refusal of an in-place write into an output of unbind (or a view of one),
    naming the view it writes into: ``through`` (a view that ``t[index] = v`` makes), or t."""
    if through is not None:
        name, nr = through, 0
    else:
        name, nr = t.grad_fn.name(), t._output_nr
        if name.startswith("torch::autograd::"):
            name = name.rsplit(":", 1)[-1]
        elif name.endswith("Backward0"):
            name = name[:-len("Backward0")]
    raise RuntimeError(
        f"Output {nr} of {name} is a view and is being modified inplace. This view is the output "
        "of a function that returns multiple views. Such functions do not allow the output views "
        "to be modified inplace. You should replace the inplace operation by an out-of-place one."
    )


def _check_leaf_inplace(t):
    if grad_state.enabled and t.requires_grad and t.grad_fn is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = t._base
    # a differentiable view (``x[0]``, not ``x.detach()``) of a leaf that requires grad
    if (grad_state.enabled and base is not None and t.grad_fn is not None and base.requires_grad
            and base.grad_fn is None):
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )


# -- in-place ops ----------------------------------------------------------------------------------

def inplace(name, self, other=None, **params):
    """Run an op in place on ``self``: same values as the out-of-place op, written into self's
    memory, the version counter bumped, and self's grad_fn replaced by the op's node."""
    global _apply_inplace
    if _apply_inplace is None:  # imported once: an import statement per call costs ~1 us
        from ..autograd.inplace import apply_inplace as _apply_inplace
    _check_inplace(self)
    return _apply_inplace(OPS[name], self, other, **params) if params else _apply_inplace(
        OPS[name], self, other)


_apply_inplace = None


def zero_(self):
    _check_inplace(self)
    from ..autograd.inplace import overwrite

    return overwrite(self, 0)


def fill_(self, value):
    _check_inplace(self)
    from ..autograd.inplace import overwrite

    return overwrite(self, value)


def copy_(self, src):
    _check_inplace(self)
    from ..autograd.inplace import copy_from

    return copy_from(self, src)


# -- issue 14: all/any, new_*, triangles, masks, gather/scatter, index_select/index_copy ----------

def _reduce_bool(name, input, dim, keepdim):
    if dim is not None:
        dim = _norm_dims(tuple(dim) if isinstance(dim, list) else dim, input.ndim)
        if input.ndim == 0:
            dim = None
    out = apply(OPS[name], input, dim=dim, keepdim=keepdim)
    if input._data.dtype == np.uint8:  # PyTorch keeps uint8 for uint8 input
        out._data = out._data.astype(np.uint8)
    return out


def all(input, dim=None, keepdim=False):
    return _reduce_bool("all", input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    return _reduce_bool("any", input, dim, keepdim)


def _new(self, shape, fill, dtype, requires_grad):
    from ..budget import check_shape
    from ..dtypes import to_numpy_dtype

    dt = self._data.dtype if dtype is None else to_numpy_dtype(dtype)
    check_shape(shape, itemsize=dt.itemsize)  # the allocation budget (engine/budget.py)
    data = np.empty(shape, dt) if fill is None else np.full(shape, fill, dt)
    out = _T._wrap(data)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _new_shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)) or len(size) == 1 and (
            type(size[0]).__name__ == "Size"):
        return tuple(int(n) for n in size[0])
    return tuple(int(n) for n in size)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False, **_):
    return _new(self, _new_shape(size), 1, dtype, requires_grad)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **_):
    return _new(self, _new_shape(size), 0, dtype, requires_grad)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False, **_):
    return _new(self, _new_shape(size), 0, dtype, requires_grad)  # zeros: reproducible


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **_):
    return _new(self, _new_shape((size,)), fill_value, dtype, requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, **_):
    from ..creation import tensor

    if isinstance(data, _T):
        data = data._data
    return tensor(data, dtype=self.dtype if dtype is None else dtype,
                  requires_grad=requires_grad)


def _at_least_2d(name, input):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    _at_least_2d("tril", input)
    return apply(OPS["tril"], input, diagonal=diagonal)


def triu(input, diagonal=0):
    _at_least_2d("triu", input)
    return apply(OPS["triu"], input, diagonal=diagonal)


def tril_(self, diagonal=0):
    _at_least_2d("tril", self)
    return _inplace_by_op(OPS["tril"], self, diagonal=diagonal)


def triu_(self, diagonal=0):
    _at_least_2d("triu", self)
    return _inplace_by_op(OPS["triu"], self, diagonal=diagonal)


def _inplace_by_op(op, self, *args, **params):
    """An in-place op whose other arguments need not match self's shape (scatter_, index_copy_,
    masked_fill_...): the op's result, written into self; self's grad_fn is the op's node (on a
    view: moved onto the base, as any in-place write)."""
    from ..autograd import inplace as _inplace_mod
    from ..events import hub

    _check_inplace(self)
    source = self
    if "x" in op.saves:
        # the node keeps self's value from before the write (PyTorch saves the original self):
        # a stand-in holding a copy, with self's history
        source = _T._wrap(self._data.copy())
        source._requires_grad, source.grad_fn = self._requires_grad, self.grad_fn
        source._output_nr = self._output_nr
    active = hub.active
    hub.active = False  # the node is announced below, with self as its output
    try:
        out = apply(op, source, *args, **params)
    finally:
        hub.active = active
    np.copyto(self._data, out._data, casting="unsafe")
    self._version.value += 1
    if out.grad_fn is not None:
        _inplace_mod.take_history(self, out.grad_fn)
    return self


def _long_dtype_name(dt) -> str:
    return {"int64": "long int", "int32": "int", "float32": "float", "float64": "double",
            "uint8": "unsigned char", "int16": "short int", "int8": "signed char"}.get(
        np.dtype(dt).name, np.dtype(dt).name)


def _masked_fill_args(input, mask, value):
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_long_dtype_name(mask._data.dtype)}")
    if isinstance(value, _T) and value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    _check_broadcast(input, mask)


def masked_fill(input, mask, value):
    _masked_fill_args(input, mask, value)
    if isinstance(value, _T):
        return apply(OPS["masked_fill_tensor"], input, value, mask=mask._data)
    return apply(OPS["masked_fill"], input, mask=mask._data, value=value)


def masked_fill_(self, mask, value):
    _masked_fill_args(self, mask, value)
    target = np.broadcast_shapes(self._data.shape, mask._data.shape)
    if target != self._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, target))}]")
    if isinstance(value, _T):
        return _inplace_by_op(OPS["masked_fill_tensor"], self, value, mask=mask._data)
    return _inplace_by_op(OPS["masked_fill"], self, mask=mask._data, value=value)


def _shape_list(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _check_along(input, dim, idx, src=None, name="gather"):
    """gather/scatter's checks: dims, the index no larger than self (and src) except along dim,
    the index values within range."""
    if idx.ndim != input.ndim and not (idx.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           + ("input tensor" if name == "gather" else "self tensor"))
    for k in range(idx.ndim):
        too_big = k != dim and idx.shape[k] > input.shape[k]
        too_big_src = src is not None and src.ndim and idx.shape[k] > src.shape[k]
        if too_big or too_big_src:
            if name == "gather":
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {_shape_list(idx.shape)}"
                    f" to be no larger than self {_shape_list(input.shape)} apart from dimension "
                    f"{dim}")
            raise RuntimeError(
                f"Expected index {_shape_list(idx.shape)} to be no larger than self "
                f"{_shape_list(input.shape)} apart from dimension {dim} and to be no larger size "
                f"than src {_shape_list(src.shape if src is not None else ())}")
    size = input.shape[dim] if input.ndim else 1
    if idx.size:
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise RuntimeError(
                f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {dim} with size "
                f"{size}")


def gather(input, dim, index, *, sparse_grad=False):
    d = _norm_dim(dim, input.ndim)
    if not isinstance(index, _T) or index._data.dtype.kind not in "iu":
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    idx = index._data.astype(np.int64, copy=False)
    _check_along(input, d, idx)
    return apply(OPS["gather"], input, dim=d, index=idx, shape=input._data.shape)


def _scatter_impl(input, dim, index, src=None, value=None, reduce=None, name="scatter",
                  inplace_=False):
    if reduce is not None:
        raise NotImplementedError("scatter with reduce= is not supported by the engine")
    d = _norm_dim(dim, input.ndim)
    if not isinstance(index, _T) or index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    idx = index._data.astype(np.int64, copy=False)
    if src is not None and not isinstance(src, _T):
        src, value = None, src
    if src is not None and src._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    _check_along(input, d, idx, src._data if src is not None else None, name="scatter")
    run = (lambda op, *a, **p: _inplace_by_op(op, input, *a, **p)) if inplace_ else (
        lambda op, *a, **p: apply(op, input, *a, **p))
    if name == "scatter_add":
        return run(OPS["scatter_add"], src, dim=d, index=idx, src_shape=src._data.shape)
    if src is None:
        return run(OPS["scatter_value"], dim=d, index=idx, value=value)
    return run(OPS["scatter"], src, dim=d, index=idx, src_shape=src._data.shape)


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    return _scatter_impl(input, dim, index, src, value, reduce)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    return _scatter_impl(self, dim, index, src, value, reduce, inplace_=True)


def scatter_add(input, dim, index, src):
    return _scatter_impl(input, dim, index, src, name="scatter_add")


def scatter_add_(self, dim, index, src):
    return _scatter_impl(self, dim, index, src, name="scatter_add", inplace_=True)


def _vector_index(name, index, expected="int32 or int64"):
    if not isinstance(index, _T) or index._data.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype {expected} for index")
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    return index._data.astype(np.int64, copy=False).reshape(-1)


def index_select(input, dim, index):
    d = _norm_dim(dim, input.ndim)
    idx = _vector_index("index_select", index)
    size = input.shape[d] if input.ndim else 1
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad[0])} "
                           f"axis_dim={size}")
    if input.ndim == 0:
        return apply(OPS["clone"], input)
    return apply(OPS["index_select"], input, dim=d, index=idx, shape=input._data.shape)


def _index_copy_impl(input, dim, index, source, inplace_):
    d = _norm_dim(dim, input.ndim)
    idx = _vector_index("index_copy_", index, "int64")
    n = source.shape[d] if source.ndim else 1
    if idx.size != n:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({n})")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_dtype_title(input)} and (source) {_dtype_title(source)}")
    op = OPS["index_copy"]
    if inplace_:
        return _inplace_by_op(op, input, source, dim=d, index=idx)
    return apply(op, input, source, dim=d, index=idx)


def index_copy(input, dim, index, source):
    return _index_copy_impl(input, dim, index, source, False)


def index_copy_(self, dim, index, source):
    return _index_copy_impl(self, dim, index, source, True)


# -- issue 14: flip, repeat/tile, trace ------------------------------------------------------------

def flip(input, dims):
    if isinstance(dims, (int, np.integer)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not "
                        f"{type(dims).__name__}")
    d = _norm_dims(tuple(dims), input.ndim)
    return apply(OPS["flip"], input, dims=tuple(d) if input.ndim else ())


def _flip_method(self, *dims):
    return flip(self, _shape_arg(dims))


def repeat(input, *repeats):
    reps = _shape_arg(repeats)
    if len(reps) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    sizes = (1,) * (len(reps) - input.ndim) + tuple(input.shape)
    out = [r * n for r, n in zip(reps, sizes)]
    for r, n in zip(reps, out):
        if n < 0 or r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{_shape_list(out)}")
    return apply(OPS["repeat"], input, repeats=reps, shape=input._data.shape)


def tile(input, dims):
    reps = _shape_arg((dims,)) if isinstance(dims, (tuple, list)) else (int(dims),)
    reps = (1,) * (input.ndim - len(reps)) + reps
    return repeat(input, *reps)


def _tile_method(self, *dims):
    return tile(self, _shape_arg(dims))


def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return apply(OPS["trace"], input, shape=input._data.shape)


# -- installing methods and operators on Tensor ----------------------------------------------------

# -- issue 14: topk/sort/argsort/kthvalue/median, split/chunk, roll, diag, outer, one_hot ---------

class _Topk(_MinMax):
    _name = "topk"


class _Sort(_MinMax):
    _name = "sort"


class _Kthvalue(_MinMax):
    _name = "kthvalue"


class _Median(_MinMax):
    _name = "median"


def _long(arr):
    return _T._wrap(np.asarray(arr, dtype=np.int64))


def _sort_key(data, descending):
    """An array whose ascending stable order is ``data``'s (descending: reversed, ties kept in
    order)."""
    if data.dtype == np.bool_:
        data = data.astype(np.int8)
    return -data if descending else data


def topk(input, k, dim=-1, largest=True, sorted=True):
    data = input._data
    d = _norm_dim(dim, data.ndim)
    n = data.shape[d] if data.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if data.ndim == 0:
        return _Topk(apply(OPS["alias"], input) if k else input[None][:0][0:0], _long(0))
    order = np.argsort(_sort_key(data, largest), axis=d, kind="stable")
    idx = np.take(order, np.arange(k), axis=d)
    values = apply(OPS["topk"], input, dim=d, indices=idx, shape=data.shape)
    return _Topk(values, _long(idx))


def sort(input, dim=-1, descending=False, stable=False):
    data = input._data
    if data.ndim == 0:
        return _Sort(apply(OPS["alias"], input), _long(0))
    d = _norm_dim(dim, data.ndim)
    idx = np.argsort(_sort_key(data, descending), axis=d, kind="stable")
    return _Sort(apply(OPS["sort"], input, dim=d, indices=idx, shape=data.shape), _long(idx))


def argsort(input, dim=-1, descending=False, stable=False):
    d = _norm_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        return _long(0)
    return apply(OPS["argsort"], input if input._data.dtype != np.bool_ else to(input, np.int8),
                 dim=d, descending=descending)


def _pick_along(name, input, dim, pos, keepdim, ret):
    """kthvalue / median along ``dim``: the element at sorted position ``pos``."""
    data = input._data
    d = _norm_dim(dim, data.ndim)
    if data.ndim == 0:
        return ret(apply(OPS["alias"], input), _long(0))
    order = np.argsort(data, axis=d, kind="stable")
    idx = np.take(order, [pos], axis=d)
    values = apply(OPS[name], input, dim=d, indices=idx, keepdim=keepdim, shape=data.shape)
    return ret(values, _long(idx if keepdim else np.squeeze(idx, d)))


def kthvalue(input, k, dim=-1, keepdim=False):
    data = input._data
    n = data.shape[_norm_dim(dim, data.ndim)] if data.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _pick_along("kthvalue", input, dim, k - 1, keepdim, _Kthvalue)


def median(input, dim=_UNSET, keepdim=False):
    data = input._data
    if dim is _UNSET:
        if data.size == 0:
            return _T._wrap(np.asarray(np.nan, dtype=data.dtype))
        return apply(OPS["median"], input)
    n = data.shape[_norm_dim(dim, data.ndim)] if data.ndim else 1
    return _pick_along("median_dim", input, dim, (n - 1) // 2, keepdim, _Median)


def _split_views(input, d, sizes, op_name):
    """Views of ``input`` along ``d`` of ``sizes``, one node for all (SplitBackward0 /
    SplitWithSizesBackward0), as unbind's."""
    from ..autograd.node import SplitNode

    lead = (slice(None),) * d
    ends = np.cumsum([0, *sizes]).tolist()
    pieces = [lead + (slice(a, b), ...) for a, b in zip(ends, ends[1:])]
    return _views_of(input, pieces, SplitNode, _NODE_OPS[op_name],
                     {"dim": d, "sizes": tuple(sizes)})


def split(tensor, split_size_or_sections, dim=0):
    return _split_views(tensor, *_split_sizes(tensor, split_size_or_sections, dim))


def _split_sizes(tensor, split_size_or_sections, dim):
    """(dim, the pieces' sizes, the row) of ``split``, with its errors."""
    data = tensor._data
    if data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dim(dim, data.ndim)
    n = data.shape[d]
    s = split_size_or_sections
    if isinstance(s, (list, tuple)):
        sizes = [int(v) for v in s]
        if builtins.sum(sizes) != n or builtins.any(v < 0 for v in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        return d, sizes, "split_with_sizes"
    s = int(s)
    if s < 0 or (s == 0 and n != 0):
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}" if s == 0 else
                           f"split expects split_size be non-negative, but got split_size={s}")
    sizes = [builtins.min(s, n - i) for i in range(0, n, s)] if n else [0]
    return d, sizes, "split"


def _chunk_checks(input, chunks):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")


def chunk(input, chunks, dim=0):
    _chunk_checks(input, chunks)
    data = input._data
    n = data.shape[_norm_dim(dim, data.ndim)]
    return split(input, (n + chunks - 1) // chunks if n else 0, dim)


def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(OPS["roll"], input, shifts=shifts, dims=())  # over the flattened tensor
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    dims = tuple(_norm_dim(d, input.ndim) for d in dims)
    return apply(OPS["roll"], input, shifts=shifts, dims=dims)


def diag(input, diagonal=0):
    data = input._data
    if data.ndim == 1:
        return apply(OPS["diag_embed"], input, diagonal=diagonal)
    if data.ndim == 2:
        return apply(OPS["diagonal_copy"], input, diagonal=diagonal, shape=data.shape)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{data.ndim}D")


def outer(input, vec2):
    """PyTorch's ``input.reshape(-1, 1) * vec2`` (ViewBackward0 into MulBackward0)."""
    for t in (input, vec2):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D"
                               if t is input else
                               f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return mul(reshape(input, -1, 1), vec2)


ger = outer


def one_hot(tensor, num_classes=-1):
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1 if data.size else 0
    elif data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = apply(OPS["one_hot"], tensor, num_classes=num_classes)
    out._version.value = 2  # PyTorch's zeros(...).scatter_(...): two writes
    return out


def _inplace_view(name, self, **params):
    """``unsqueeze_`` / ``squeeze_`` / ``t_`` / ``transpose_``: self takes the new shape (its
    version bumped) and, when it records, the row's node."""
    _check_leaf_inplace(self)
    r = apply(OPS[name], self, **params)
    self._data = r._data
    if r.grad_fn is not None:
        self.grad_fn = r.grad_fn
        self._output_nr = 0
    self._version.value += 1
    return self


def unsqueeze_(self, dim):
    return _inplace_view("unsqueeze_", self, dim=_norm_dim(dim, self.ndim + 1))


def squeeze_(self, dim=None):
    if dim is None:
        return _inplace_view("squeeze_", self, src_shape=self._data.shape)
    d = _norm_dim(dim, self.ndim)
    return _inplace_view("squeeze_dim4", self, dim=d if self._data.shape[d] == 1 else (),
                         src_shape=self._data.shape)


def t_(self):
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return _inplace_view("t_", self)


def transpose_(self, dim0, dim1):
    return _inplace_view("transpose_", self, dim0=_norm_dim(dim0, self.ndim),
                         dim1=_norm_dim(dim1, self.ndim))


def fmod_(self, other):
    return inplace("fmod" if not isinstance(other, _T) else "fmod_tensor", self, other)


def remainder_(self, other):
    return inplace("remainder" if not isinstance(other, _T) else "remainder_tensor", self, other)


# numpy's ``axis=`` / ``keepdims=`` spellings (PyTorch's parser takes them wherever a native
# function has ``dim`` / ``keepdim``; ``norm`` and ``split`` are Python functions there: not them)
for _name in ("sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "prod", "any", "all",
              "cumsum", "softmax", "log_softmax", "amax", "amin", "gather", "index_select",
              "unbind", "squeeze", "unsqueeze", "topk", "sort", "argsort", "kthvalue",
              "median", "chunk", "_sum_method", "_mean_method", "_prod_method",
              "_var_method", "_std_method", "_cumsum_method"):
    globals()[_name] = _numpy_kw(globals()[_name])
del _name


# The Tensor methods the rows spell (``Tensor.x`` in their ``api``) are installed from the rows:
# a method is ``_METHODS[x]`` when it differs from the function ``x`` of this module, an in-place
# ``x_`` without a function of its own runs the row in place, an operator is ``_DUNDERS[x]`` or
# (for a row with ``make``) the row's function. ``_NOT_OPS``: the methods that record no node.

def _type_method(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()`` names the legacy type; ``x.type(torch.LongTensor)`` /
    ``x.type("torch.LongTensor")`` / ``x.type(torch.int64)`` cast (the same tensor if equal)."""
    if dtype is None:
        return _tensor_type_name(self._data.dtype)
    from ..legacy_types import BY_NAME

    if isinstance(dtype, str):
        if dtype not in BY_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = BY_NAME[dtype]
    legacy = getattr(dtype, "_np_dtype", None)
    if legacy is not None:
        return self if self._data.dtype == legacy else to(self, legacy)
    return to(self, dtype)


def _invert(self):
    if self._data.dtype.kind == "f":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _MADE["bitwise_not"](self)


def _operand(o) -> bool:
    """What a Tensor's binary operator takes: a tensor or a number (a list is refused, as by
    PyTorch's operators, though its functions take one)."""
    return isinstance(o, (_T, numbers.Number))


def _bitwise_operators():
    out = {}
    for name, dunder in (("and", "and"), ("or", "or"), ("xor", "xor"), ("left_shift", "lshift"),
                         ("right_shift", "rshift")):
        fn = _MADE[f"bitwise_{name}"]
        out[f"__{dunder}__"] = lambda self, o, fn=fn: fn(self, o) if _operand(o) \
            else NotImplemented
        out[f"__r{dunder}__"] = lambda self, o, fn=fn: fn(o, self) if _operand(o) \
            else NotImplemented
        out[f"__i{dunder}__"] = lambda self, o, name=name: inplace(f"bitwise_{name}", self, o) \
            if _operand(o) else NotImplemented
    return out


_METHODS = {
    "sum": _sum_method, "mean": _mean_method, "prod": _prod_method, "var": _var_method,
    "std": _std_method, "cumsum": _cumsum_method,
    "flip": _flip_method, "tile": _tile_method,
    "where": lambda self, c, o: where(c, self, o),
    "view_as": lambda self, other: view(self, *other.shape),
    "reshape_as": lambda self, other: reshape(self, *other.shape),
    "float": lambda self: to(self, np.float32),
    "double": lambda self: to(self, np.float64),
    "long": lambda self: to(self, np.int64),
    "int": lambda self: to(self, np.int32),
    "bool": lambda self: to(self, np.bool_),
    "half": lambda self: to(self, np.float16),
    "type": _type_method,
    "polygamma": lambda self, n: _numeric.polygamma(n, self),
}
_PROPERTIES = {
    "T": lambda self: permute(self, *reversed(range(self.ndim))),
    "mT": lambda self: transpose(self, -2, -1),
}
_DUNDERS = {
    "__add__": add, "__radd__": add, "__sub__": sub, "__mul__": mul, "__rmul__": mul,
    "__truediv__": div, "__pow__": pow, "__matmul__": matmul,
    "__rsub__": lambda self, o: rsub(self, o),
    "__rtruediv__": lambda self, o: div(o, self),
    "__floordiv__": lambda self, o: floor_divide(self, o),
    "__rfloordiv__": lambda self, o: floor_divide(o, self),
    "__mod__": lambda self, o: remainder(self, o),
    "__rpow__": lambda self, o: pow(o, self),
    "__rmatmul__": lambda self, o: matmul(o, self),
    "__invert__": _invert,
    "__getitem__": getitem, "__setitem__": setitem,
    "__iadd__": lambda self, o: inplace("add", self, o),
    "__isub__": lambda self, o: inplace("sub", self, o),
    "__imul__": lambda self, o: inplace("mul", self, o),
    "__itruediv__": lambda self, o: inplace("div", self, o),
    **_bitwise_operators(),
}
_NOT_OPS = {
    "equal": equal, "allclose": allclose,
    "new_ones": _new_ones, "new_zeros": _new_zeros, "new_empty": _new_empty,
    "new_full": _new_full, "new_tensor": _new_tensor,
    "cpu": lambda self: self,
    "cuda": lambda self, device=None, *a, **k: _cuda_of(device),
    "__pos__": lambda self: self,
    "__hash__": lambda self: id(self),
}


# ``out=`` on the functions of ``torch`` (``_PLAIN`` keeps the methods and operators above
# without it, as PyTorch's)
_PLAIN: dict = {}
for _name, _exact in (("add", None), ("sub", None), ("mul", None), ("div", None),
                      ("pow", None), ("maximum", None), ("minimum", None), ("clamp", None),
                      ("sum", "sum"), ("mean", None), ("prod", None), ("cumsum", None),
                      ("matmul", "mm"), ("mm", "mm"), ("bmm", "mm"), ("mv", "mm"),
                      ("dot", "dot"), ("cat", "cat"), ("stack", "cat")):
    _PLAIN[_name] = globals()[_name]
    globals()[_name] = _out_kw(globals()[_name], _exact)
for _name in ("true_divide", "divide", "multiply", "subtract"):
    _PLAIN[_name] = globals()[_name]
    globals()[_name] = globals()[{"true_divide": "div", "divide": "div", "multiply": "mul",
                                  "subtract": "sub"}[_name]]
del _name, _exact


def _method(name, ops):
    """The implementation of ``Tensor.<name>``, which the rows ``ops`` spell."""
    if name in _METHODS:
        return _METHODS[name]
    if name.startswith("__"):
        # an operator: written here, or the function of a row with ``make`` (``-x``: neg)
        return _DUNDERS[name] if name in _DUNDERS else _MADE[ops[0].name]
    if name.endswith("_") and (name not in globals() or name in _TORCH_INPLACE):
        op = ops[0]
        return _unary_inplace(op) if op.make == "unary" else _make_inplace(op.name)
    return _PLAIN.get(name) or globals()[name]


def install_methods(T) -> None:
    global _T, _TT
    from ..tensor import TENSOR_TYPES

    _T = T
    _TT = TENSOR_TYPES
    own = set(vars(T))  # defined by Tensor itself (``backward``, ``__iter__``): left alone
    for name, ops in _spellings("Tensor.").items():
        if name in own:
            continue
        if name in _PROPERTIES:
            setattr(T, name, property(_PROPERTIES[name]))
            continue
        fn = _method(name, ops)
        if name.endswith("_") and not name.startswith("__") and fn.__name__ == "method":
            fn.__name__ = name
        setattr(T, name, fn)
    for name, fn in _NOT_OPS.items():
        setattr(T, name, fn)


def _make_inplace(name):
    def method(self, other=None, *args, **kwargs):
        if name == "clamp":
            lo, hi = kwargs.get("min", other), kwargs.get("max", args[0] if args else None)
            if isinstance(lo, _T) or isinstance(hi, _T):  # ClampBackward0, as ``clamp``
                return _inplace_by_op(
                    OPS["clamp_tensor"], self, -np.inf if lo is None else _as_tensor_arg(lo),
                    np.inf if hi is None else _as_tensor_arg(hi))
            return inplace("clamp", self, None, min=lo, max=hi)
        if name == "pow":
            return inplace("pow", self, None, exponent=other)
        alpha = kwargs.get("alpha", 1)
        if alpha != 1:
            return inplace(name, self, other, alpha=alpha)
        return inplace(name, self, other)

    method.__name__ = name + "_"
    return method


def _cuda_of(device):
    from ..device import cuda_of

    cuda_of(device)


def _torch_inplace(name):
    """``torch.<name>(input, ...)``: the in-place method ``input.<name>(...)``."""
    def fn(input, *args, **kwargs):
        if not isinstance(input, _T):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


# ops written in modules of their own, on the functions above; their public functions are this
# module's (``torch.x`` and ``Tensor.x`` are found here)
from . import composite as _composite  # noqa: E402
from . import einsum as _einsum_module  # noqa: E402
from . import numeric as _numeric  # noqa: E402

for _module in (_composite, _einsum_module, _numeric):
    globals().update({_name: _fn for _name, _fn in vars(_module).items()
                      if not _name.startswith("_") and callable(_fn)
                      and getattr(_fn, "__module__", None) == _module.__name__})
for _name in ("cumprod", "logsumexp", "nansum", "nanmean", "cummax", "cummin", "mode",
              "logcumsumexp", "count_nonzero"):
    globals()[_name] = _numpy_kw(globals()[_name])
del _module
# the rows' underscored spellings (``torch._safe_softmax``), which the loop above leaves out
_safe_softmax = _numeric._safe_softmax
_standard_gamma = _numeric._standard_gamma
_pack_padded_sequence = _numeric._pack_padded_sequence

_TORCH_INPLACE = {_name for _name in _spellings("torch.")
                  if _name.endswith("_") and _name not in globals()}
for _name in _TORCH_INPLACE:
    globals()[_name] = _torch_inplace(_name)
del _name



__all__ = [n for n in dir() if not n.startswith("_")]
