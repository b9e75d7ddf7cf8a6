"""Names for torch tensors: from a dict the user passes, and from modules' ``named_parameters``.

The same rules as ``engine.graph.names`` (the engine's twin): a tensor bound to several names is
drawn under the first, a module parameter is named by its path (``model.fc1.weight``) and belongs
to its module's group (``model.fc1``), and containers are searched a few levels deep.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_DEPTH = 3
MAX_ITEMS = 10_000


@dataclass
class NamedTorchTensor:
    """A torch tensor with the name it is drawn under, its module group and its other names."""

    name: str
    tensor: object
    group: str | None = None
    aliases: list[str] = field(default_factory=list)


def named_torch_tensors(names: dict | None, model=None, model_prefix: str = "") -> list:
    """The torch tensors named by ``names`` and by ``model``'s parameters, each once.

    Parameters
    ----------
    names : dict, optional
        Name -> tensor, module, or list/tuple/dict of them (e.g. a script's namespace).
    model : torch.nn.Module, optional
        Its parameters are named by their path, prefixed with ``model_prefix``.
    model_prefix : str
        ``"model"`` names ``fc1.weight`` as ``model.fc1.weight`` (the group is ``model.fc1``).
    """
    import torch

    found: dict[int, NamedTorchTensor] = {}
    for name, value in (names or {}).items():
        if isinstance(name, str) and not name.startswith("__"):
            _visit(torch, name, value, found, 0)
    if model is not None:
        _visit_module(model_prefix, model, found)
    return list(found.values())


def _visit(torch, name: str, value, found: dict, depth: int) -> None:
    if isinstance(value, torch.Tensor):
        _add(name, value, None, found)
    elif isinstance(value, torch.nn.Module):
        _visit_module(name, value, found)
    elif isinstance(value, (list, tuple)) and depth < MAX_DEPTH:
        for i, item in enumerate(value[:MAX_ITEMS]):
            _visit(torch, f"{name}[{i}]", item, found, depth + 1)
    elif isinstance(value, dict) and depth < MAX_DEPTH:
        for i, (key, item) in enumerate(value.items()):
            if i >= MAX_ITEMS:
                break
            if isinstance(key, (str, int)):
                _visit(torch, f"{name}[{key!r}]", item, found, depth + 1)


def _visit_module(prefix: str, module, found: dict) -> None:
    for path, param in module.named_parameters():
        owner = path.rsplit(".", 1)[0] if "." in path else ""
        group = ".".join(p for p in (prefix, owner) if p) or None
        _add(".".join(p for p in (prefix, path) if p), param, group, found)


def _add(name: str, tensor, group, found: dict) -> None:
    entry = found.get(id(tensor))
    if entry is None:
        found[id(tensor)] = NamedTorchTensor(name, tensor, group)
        return
    entry.aliases.append(name)
    if entry.group is None:
        entry.group = group
