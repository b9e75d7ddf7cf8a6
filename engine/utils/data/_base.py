"""What the data classes share: they print as PyTorch's (``<class
'torch.utils.data.dataloader.DataLoader'>``, ``<torch.utils.data.dataset.TensorDataset object at
0x...>``), as the engine's other public classes do (``engine.tensor.TorchNamedMeta``)."""

from __future__ import annotations

from abc import ABCMeta

from engine.tensor import TorchNamedMeta


class TorchNamedABCMeta(TorchNamedMeta, ABCMeta):
    """For the classes that, in PyTorch, also derive from an ``collections.abc`` ABC."""


class TorchNamed:
    """An instance prints as PyTorch's default ``object.__repr__`` would (a subclass a script
    defines keeps its own name: ``<__main__.MyDataset object at 0x...>``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        cls = type(self)
        name = cls.__dict__.get("_torch_class_name") or f"{cls.__module__}.{cls.__qualname__}"
        return f"<{name} object at {hex(id(self))}>"
