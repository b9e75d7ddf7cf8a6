"""How the engine's public classes print: as PyTorch's (``<class 'torch.Tensor'>``,
``<class 'MulBackward0'>``)."""

from __future__ import annotations


class TorchNamedMeta(type):
    """The metaclass of the engine's public classes (Tensor, nn.Module, optim.Optimizer and their
    subclasses), only so that a class prints as PyTorch's does: ``type(x)`` shows
    ``<class 'torch.Tensor'>``, ``<class 'torch.nn.modules.linear.Linear'>``,
    ``<class 'torch.optim.sgd.SGD'>``. Each engine class names its torch class in its own
    ``_torch_class_name``; ``__module__`` stays the engine's (the script interpreter's safety
    policy keys on it). A class that does not set ``_torch_class_name`` itself (a subclass a
    script defines, ``<class '__main__.Net'>``) prints as Python prints it."""

    def __repr__(cls) -> str:
        name = cls.__dict__.get("_torch_class_name")
        return type.__repr__(cls) if name is None else f"<class '{name}'>"
