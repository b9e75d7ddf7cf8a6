"""PyTorch's legacy tensor types (``torch.FloatTensor``, ``torch.LongTensor``...): calling one
makes a tensor of its dtype (``FloatTensor([1, 2])`` from data, ``FloatTensor(2, 3)``
uninitialised of that shape), ``isinstance(x, torch.FloatTensor)`` tests the dtype, and
``x.type(torch.LongTensor)`` casts (engine/ops/api.py)."""

from __future__ import annotations

import numpy as np

from .tensor import Tensor, TorchNamedMeta


class _LegacyMeta(TorchNamedMeta):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls._np_dtype

    def __call__(cls, *args, device=None):
        from . import creation

        if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                        for a in args):
            return creation.zeros(*args, dtype=cls._np_dtype)
        if not args:
            return creation.zeros(0, dtype=cls._np_dtype)
        if len(args) == 1:
            data = args[0]
            if isinstance(data, Tensor):
                if data._data.dtype != cls._np_dtype:
                    raise TypeError(f"expected {cls._torch_class_name[len('torch.'):]} (got "
                                    f"{data.type()})")
                return data
            return creation.tensor(data, dtype=cls._np_dtype)
        raise TypeError(f"new(): invalid arguments for {cls._torch_class_name}")


def _legacy(name, np_dtype):
    return _LegacyMeta(name, (), {"_torch_class_name": f"torch.{name}",
                                  "_np_dtype": np.dtype(np_dtype), "__module__": __name__})


FloatTensor = _legacy("FloatTensor", np.float32)
DoubleTensor = _legacy("DoubleTensor", np.float64)
HalfTensor = _legacy("HalfTensor", np.float16)
LongTensor = _legacy("LongTensor", np.int64)
IntTensor = _legacy("IntTensor", np.int32)
ShortTensor = _legacy("ShortTensor", np.int16)
CharTensor = _legacy("CharTensor", np.int8)
ByteTensor = _legacy("ByteTensor", np.uint8)
BoolTensor = _legacy("BoolTensor", np.bool_)

BY_NAME = {c._torch_class_name: c for c in (FloatTensor, DoubleTensor, HalfTensor, LongTensor,
                                             IntTensor, ShortTensor, CharTensor, ByteTensor,
                                             BoolTensor)}
