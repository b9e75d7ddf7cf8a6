"""``Variable``: the deprecated pre-0.4 wrapper. As in PyTorch, calling it returns a plain
Tensor."""

from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from ..tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)`` gives ``data`` itself (a Tensor), with the flag set.

    PyTorch's Variable API is deprecated: autograd works on Tensors directly, so the result is an
    ordinary ``Tensor`` (``type(Variable(t)) is Tensor``) sharing ``data``'s memory.
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from ..tensor import Tensor

        if data is None:
            from ..creation import tensor

            return tensor([], requires_grad=requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        t = Tensor._wrap(data._data)
        if requires_grad:
            t.requires_grad_(True)
        return t
