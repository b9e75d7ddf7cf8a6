"""Which tensors the user can name: bound in the namespace, inside containers, or module parameters.

Modules are recognised by duck typing (an instance with a callable ``named_parameters``) so the
graph does not depend on ``engine.nn``; a parameter is named by its path (``model.fc1.weight``) and
belongs to the group of its module (``model.fc1``), which the view can fold into one box.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field

from ..tensor import Tensor

MAX_DEPTH = 3
"""How deep containers are searched (``xs[0]['w']`` is depth 2)."""

MAX_ITEMS = 10_000
"""Items looked at per container: a list of a million floats is data, not tensors to draw."""

MAX_VISITS = 200_000
"""Values looked at in all: nested containers must not make a pause slow."""


@dataclass
class NamedTensor:
    """A tensor with the name it is drawn under and the other names bound to it."""

    name: str
    tensor: Tensor
    group: str | None = None
    aliases: list[str] = field(default_factory=list)


def named_tensors(namespace: dict) -> list[NamedTensor]:
    """The tensors reachable by name from ``namespace``, each once, in the namespace's order.

    A tensor bound to several names is drawn under the first one found in the namespace's order
    (the others become its ``aliases``) and keeps the group of any module it is a parameter of.
    """
    found: dict[int, NamedTensor] = {}
    budget = [MAX_VISITS]
    for name, value in list(namespace.items()):
        if not isinstance(name, str) or name.startswith("__"):
            continue
        _visit(name, value, None, found, 0, budget)
    return list(found.values())


def _visit(name: str, value, group, found: dict, depth: int, budget: list) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if isinstance(value, Tensor):
        _add(name, value, group, found)
    elif isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
        return
    elif isinstance(value, (list, tuple)):
        if depth < MAX_DEPTH:
            for i, item in enumerate(value[:MAX_ITEMS]):
                _visit(f"{name}[{i}]", item, group, found, depth + 1, budget)
    elif isinstance(value, dict):
        if depth < MAX_DEPTH:
            for i, (key, item) in enumerate(value.items()):
                if i >= MAX_ITEMS:
                    break
                if isinstance(key, (str, int)):
                    _visit(f"{name}[{key!r}]", item, group, found, depth + 1, budget)
    elif callable(getattr(value, "named_parameters", None)):
        _visit_module(name, value, found)


def _visit_module(name: str, module, found: dict) -> None:
    try:
        params = list(module.named_parameters())
    except Exception:  # noqa: BLE001 - a half-built user module must not break the picture
        return
    for path, param in params:
        if isinstance(param, Tensor):
            owner = path.rsplit(".", 1)[0] if "." in path else ""
            group = f"{name}.{owner}" if owner else name
            _add(f"{name}.{path}", param, group, found)


def _add(name: str, tensor: Tensor, group, found: dict) -> None:
    entry = found.get(id(tensor))
    if entry is None:
        found[id(tensor)] = NamedTensor(name, tensor, group)
        return
    entry.aliases.append(name)
    if entry.group is None:
        entry.group = group
