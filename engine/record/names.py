"""Names for torch tensors: the engine's walk (``engine.naming``) run over torch's classes.

The same rules as the engine's, by construction: a tensor bound to several names is drawn under
the first, a module parameter is named by its path (``model.fc1.weight``) and belongs to its
module's group (``model.fc1``), containers are searched a few levels deep, an optimizer's
parameters nobody else names are ``opt.param_groups[0]['params'][i]``. Only the type checks
differ: ``torch.Tensor``, ``torch.nn.Module`` and ``torch.optim.Optimizer``.
"""

from __future__ import annotations

from ..naming import MAX_CONTAINER_DEPTH, MAX_ITEMS, Kinds, NamedTensor, walk

MAX_DEPTH = MAX_CONTAINER_DEPTH

NamedTorchTensor = NamedTensor
"""A torch tensor with the name it is drawn under, its module group and its other spellings."""

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "NamedTorchTensor", "TorchKinds", "named_torch_tensors"]


class TorchKinds(Kinds):
    """torch's tensors, modules and optimizers (read through their instance dicts as well)."""

    def __init__(self, torch) -> None:
        self.torch = torch

    def is_tensor(self, value) -> bool:
        return isinstance(value, self.torch.Tensor)

    def is_module(self, value) -> bool:
        return isinstance(value, self.torch.nn.Module)

    def is_optimizer(self, value) -> bool:
        return isinstance(value, self.torch.optim.Optimizer)


def named_torch_tensors(names: dict | None, model=None, model_prefix: str = "") -> list:
    """The torch tensors named by ``names`` and by ``model``'s parameters, each once.

    Parameters
    ----------
    names : dict, optional
        Name -> tensor, module, optimizer, or list/tuple/dict of them (e.g. a script's namespace).
    model : torch.nn.Module, optional
        Its parameters are named by their path, prefixed with ``model_prefix``.
    model_prefix : str
        ``"model"`` names ``fc1.weight`` as ``model.fc1.weight`` (the group is ``model.fc1``).
    """
    import torch

    extra = ((model_prefix, model),) if model is not None else ()
    naming = walk(names or {}, TorchKinds(torch), extra=extra)
    return [NamedTensor(e.name, e.tensor, e.group, e.other_spellings, e.expression, e.parameter,
                        e.buffer) for e in naming.tensors]
