"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters."""

from __future__ import annotations

import numpy as np

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

