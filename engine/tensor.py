"""``Tensor``: a numpy array with autograd metadata. It stays small: the math lives in the op table
(``ops.table``), graph recording in ``ops.dispatch``, the backward pass in ``autograd.backward``."""

from __future__ import annotations

import functools
import weakref

import numpy as np

from . import _native
from . import budget as _budget
from . import dtypes as _dt
from .autograd.grad_mode import state as _grad_state
from .autograd.node import RemovableHandle, new_accumulator
from .autograd.version import VersionCounter
from .torch_names import TorchNamedMeta
from .warn_once import warn_once

_new = object.__new__
_backward = None  # autograd.functional.backward, bound on first use (a circular import)


TENSOR_TYPES: set = set()  # Tensor and its subclasses (Parameter...), filled by _TensorMeta


class _TensorMeta(TorchNamedMeta):
    """Tensor's metaclass: prints as torch's (``TorchNamedMeta``) and keeps ``TENSOR_TYPES``."""

    def __init__(cls, name, bases, namespace, **kw) -> None:
        super().__init__(name, bases, namespace, **kw)
        # ``isinstance(v, Tensor)`` with a metaclass takes CPython's slow path (a call of
        # ``type.__instancecheck__``) whenever ``v`` is not exactly a Tensor: hot paths test
        # ``v.__class__ in TENSOR_TYPES`` instead, which every Tensor class joins here.
        TENSOR_TYPES.add(cls)


class Tensor(metaclass=_TensorMeta):
    """A multi-dimensional array that can record the operations applied to it."""

    _torch_class_name = "torch.Tensor"

    __slots__ = (
        "_data",
        "_requires_grad",
        "grad_fn",
        "_grad",
        "_version",
        "_base",
        "_output_nr",
        "_retains_grad",
        "_hooks",
        "_accumulator",
        "_is_param",
        "_multi_view",
        "__weakref__",
    )

    __array_priority__ = 1000  # numpy defers ``ndarray * tensor`` to the tensor

    def __init__(self, data=None, *args, dtype=None, requires_grad=False):
        # ``torch.Tensor(2, 3)`` is an uninitialised 2x3 float tensor; ``torch.Tensor([1, 2])``
        # copies.
        if args or isinstance(data, int):
            shape = (data, *args) if data is not None else args
            _budget.check_shape(shape)
            array = np.zeros(shape, dtype=np.float32)
        elif data is None:
            array = np.zeros((0,), dtype=np.float32)
        else:
            from .creation import _array_from  # PyTorch's dtype checks (no str, no objects)

            array = np.array(data._data if isinstance(data, Tensor) else _array_from(data),
                             dtype=np.float32)
        self._init(array)
        if requires_grad:
            self.requires_grad_(True)

    def _init(self, array: np.ndarray) -> None:
        """A new tensor's state written into ``self`` (``Tensor(...)``, a Parameter), as ``_wrap``
        makes it: the one place the slots' first values are spelled."""
        fresh = Tensor._wrap(array)
        for name in _STATE_SLOTS:
            setattr(self, name, getattr(fresh, name))

    @staticmethod
    def _wrap(array: np.ndarray) -> "Tensor":
        # A plain leaf holding ``array``; this runs once per op. With the compiled
        # engine/_native/objects.c ``_bind_cloned_wrap`` (below the class) replaces it by one C
        # call copying a tensor made here once. Here the slots are written one by one, and the
        # counter made without a Python ``__init__`` call: the one place the slots' first values
        # are spelled.
        # ``_multi_view``: True for an output of a function that returns several views (unbind:
        # iterating a tensor), and for views of it: PyTorch refuses in-place writes into those.
        t = _new(Tensor)
        t._data = array
        t._requires_grad = False
        t.grad_fn = None
        t._grad = None
        t._version = vc = _new(VersionCounter)
        vc.value = 0
        t._base = None
        t._output_nr = 0
        t._retains_grad = False
        t._hooks = None
        t._accumulator = None
        t._is_param = False
        t._multi_view = False
        return t

    # -- autograd metadata -------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        value = bool(value)
        if self.grad_fn is not None and not value:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._data.dtype.kind not in "f":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind != "f":
            # PyTorch's method words it differently from the attribute setter
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad:
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
                "more information. (Triggered internally at "
                "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {_type_name(value)}")
            if value.shape != self.shape:
                raise RuntimeError(
                    "attempting to assign a gradient of size "
                    f"'[{', '.join(map(str, value.shape))}]'"
                    f" to a tensor of size '[{', '.join(map(str, self.shape))}]'. Please ensure "
                    "that the gradient and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                from .autograd.inplace import grad_dtype_error

                raise grad_dtype_error(value._data.dtype, self._data.dtype)
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return  # leaves keep their grad anyway
        if self._retains_grad:
            return
        fn = self.grad_fn
        if fn.retained is None:
            fn.retained = {}
        fn.retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def _grad_accumulator(self):
        acc = self._accumulator() if self._accumulator is not None else None
        if acc is None:
            acc = new_accumulator(self)
            self._accumulator = weakref.ref(acc)
        return acc

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            return RemovableHandle(self._hooks, hook)
        fn = self.grad_fn
        if fn.pre_hooks is None:
            fn.pre_hooks = {}
        hooks = fn.pre_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute gradients of this tensor with respect to the graph's leaves (see
        ``autograd``)."""
        global _backward
        if _backward is None:  # imported once: an import statement per call costs ~1 us
            from .autograd.functional import backward as _backward
        _backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph,
                  inputs=inputs)

    def backward_steps(self, gradient=None, retain_graph=None):
        """The backward pass as a generator of ``BackwardStep``s, for a debugger to step through."""
        from .autograd.functional import backward_steps

        return backward_steps(self, gradient, retain_graph=retain_graph)

    def detach(self) -> "Tensor":
        # shares memory and the version counter, but is no view for autograd (``_base`` None,
        # as PyTorch's): in-place writes into it never rewrite the original's history
        t = Tensor._wrap(self._data)
        t._version = self._version
        return t

    def detach_(self) -> "Tensor":
        if self._base is not None and self.grad_fn is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                "function in torch/optim/optimizer.py as the solution."
            )
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        # ``.data`` shares memory but not autograd history nor the version counter: changes made
        # through it are invisible to autograd (that is why it is discouraged).
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        # PyTorch's ``set_data``: a Tensor only (no array, list or string). Views taken before
        # keep the old array (their memory), as PyTorch's keep the old storage.
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(value)}")
        self._data = value._data

    # -- shape and dtype ---------------------------------------------------------------------------
    @property
    def shape(self) -> "Size":
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_norm_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self):
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_xpu(self) -> bool:  # pytorch/examples pick their device by it (a CPU build: False)
        return False

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim=None):
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[dim]

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    # -- values out --------------------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        if _budget.guard is not None:  # a Python object per element
            _budget.check_list(self._data.size)
        return self._data.tolist()

    def numpy(self, force: bool = False) -> np.ndarray:
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        # PyTorch iterates ``self.unbind(0)``: one UnbindBackward0 node, outputs 0..n-1
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_api.unbind(self, 0))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        if self.requires_grad and _grad_state.enabled:
            warn_once("float_requires_grad",
                      "Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first. (Triggered "
                      "internally at /__w/pytorch/pytorch/torch/csrc/autograd/generated/"
                      "python_variable_methods.cpp:822.)")
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from .tensor_format import tensor_repr

        if _budget.guard is not None and self._data.size > 1000:
            _check_printout(self._data)
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # PyTorch formats a 0-dim plain Tensor as its item, also with an empty spec (f"{t}")
        if self._data.ndim == 0 and (spec or type(self) is Tensor):
            return format(self.item(), spec)
        return repr(self) if not spec else format(repr(self), spec)

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        t = Tensor._wrap(self._data.copy())
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = t
        return t


def _type_name(value) -> str:
    """A type's name as PyTorch's messages give it (``str``, ``numpy.ndarray``)."""
    cls = type(value)
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _check_printout(array) -> None:
    """The characters printing ``array`` would write (at least 3 per element printed), under the
    allocation budget: a summarized printout shows ``2 * edgeitems`` per dimension."""
    from . import tensor_format

    if array.size > tensor_format.THRESHOLD:
        shown = 1
        for d in array.shape:
            shown *= min(d, 2 * tensor_format.EDGEITEMS)
    else:
        shown = array.size
    _budget.check_text(3 * shown)


_STATE_SLOTS = tuple(name for name in Tensor.__slots__ if name != "__weakref__")


# the class body's ``_wrap``: the reference the compiled copy is checked against
# (tests/engine/autograd/test_native_objects.py), and what runs without the kernel
_python_wrap = Tensor._wrap


def _bind_cloned_wrap() -> None:
    """``Tensor._wrap`` as one call of the compiled ``clone_holding`` (engine/_native/objects.c):
    a copy of a tensor that the Python ``_wrap`` made once, holding the array and a copy of that
    tensor's version counter (half the instructions of 14 attribute writes and two
    ``object.__new__`` calls). Kept as it is without the kernel."""
    objects = _native.objects()
    if objects is None or not objects.cloneable(Tensor):
        return
    proto = _python_wrap(np.empty(0, np.float32))  # (an array: the partial's repr prints it)
    at = objects.slot_offset
    Tensor._wrap = staticmethod(functools.partial(
        objects.clone_holding, proto, proto._version, at(Tensor, "_data"),
        at(Tensor, "_version")))


_bind_cloned_wrap()


class Size(tuple):
    """``torch.Size``: a tuple that prints as PyTorch prints it."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


from .device import device  # noqa: E402 - torch.device (engine/device.py)


def _norm_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


from .ops import api as _api  # noqa: E402  (the methods below delegate to it)

_api.install_methods(Tensor)
