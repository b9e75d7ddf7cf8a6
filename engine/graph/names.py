"""Which tensors the graph draws, and under which names: the shared walk of ``engine.naming``.

A parameter is named by its path (``model.fc1.weight``) and belongs to the group of its module
(``model.fc1``), which the view can fold into one box. A node's ``aliases`` are every other way to
find its tensor (other names, and the script's spelling ``model[0].weight`` when it differs), so
the graph's search finds it by any of them.
"""

from __future__ import annotations

from dataclasses import replace

from ..naming import MAX_CONTAINER_DEPTH, MAX_ITEMS, MAX_VISITS, NamedTensor, walk

MAX_DEPTH = MAX_CONTAINER_DEPTH

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "MAX_VISITS", "NamedTensor", "named_tensors"]


def named_tensors(namespace: dict) -> list[NamedTensor]:
    """The tensors reachable by name from ``namespace``, each once, in the walk's order.

    A tensor bound to several names is drawn under the first one (see ``engine.naming``); its
    ``aliases`` here are all its other spellings.
    """
    return [replace(e, aliases=e.other_spellings, alias_expressions=[])
            for e in walk(namespace).tensors]
