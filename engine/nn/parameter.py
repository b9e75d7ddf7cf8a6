"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters."""

from __future__ import annotations

import numpy as np

from ..dtypes import to_numpy_dtype
from ..tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter: a leaf that requires grad unless told otherwise.

    Like ``torch.nn.Parameter`` it shares memory (and the version counter) with the tensor it is
    made from, so in-place changes through either are seen by both.

    Parameters
    ----------
    data : Tensor, optional
        The values; an empty float tensor when omitted.
    requires_grad : bool, default True
        Whether gradients are accumulated into ``.grad``.
    """

    __slots__ = ()
    _torch_class_name = "torch.nn.parameter.Parameter"  # how ``type(p)`` prints

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = Tensor._wrap(np.zeros((0,), dtype=np.float32))
        if not isinstance(data, Tensor):
            # what PyTorch's Parameter raises when it tries to detach a non-tensor
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad and data._data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        p = object.__new__(cls)
        p._init(data._data)
        p._version = data._version  # a detached alias, as PyTorch's _make_subclass
        p._is_param = True
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        # everything happens in __new__ (Tensor.__init__ would overwrite the shared data)
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # PyTorch copies the values and the flag, not the gradient
        copy = Parameter(Tensor._wrap(self._data.copy()), self.requires_grad)
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self.requires_grad))


def _rebuild_parameter(array, requires_grad):
    return Parameter(Tensor._wrap(array), requires_grad)



class _Uninitialized:
    """What a lazy module's parameters and buffers share before its first call: no shape yet;
    ``materialize`` gives the tensor its data and makes it ``cls_to_become``, as PyTorch's
    ``UninitializedTensorMixin`` does."""

    __slots__ = ()

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the tensor an (uninitialised) array of ``shape``; it becomes ``cls_to_become``."""
        dt = self._data.dtype if dtype is None else to_numpy_dtype(dtype)
        self._data = np.empty(tuple(shape), dtype=dt)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def _empty(dtype) -> np.ndarray:
    return np.empty((0,), dtype=np.float32 if dtype is None else to_numpy_dtype(dtype))


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter of a lazy module before its first call (it becomes a ``Parameter``)."""

    __slots__ = ()
    _torch_class_name = "torch.nn.parameter.UninitializedParameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return super().__new__(cls, Tensor._wrap(_empty(dtype)), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer of a lazy module before its first call (``LazyBatchNorm``'s running
    statistics); it becomes a plain ``Tensor``."""

    __slots__ = ()
    _torch_class_name = "torch.nn.parameter.UninitializedBuffer"
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = object.__new__(cls)
        t._init(_empty(dtype))
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
