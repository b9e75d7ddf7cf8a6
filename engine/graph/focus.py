"""Which node of a graph the window points the user at: the one a backward step just ran, or
the culprit a data breakpoint named."""

from __future__ import annotations

import networkx as nx


def culprit_node(graph, culprits) -> str | None:
    """The graph node a pause's ``culprits`` point at: the op that produced a NaN/Inf (the one
    behind the culprit tensor when several have its name), else the tensor."""
    ops = [name for kind, name in culprits if kind == "op"]
    tensors = [f"t:{name}" for kind, name in culprits if kind in ("tensor", "grad")]
    tensors = [t for t in tensors if t in graph]
    for op in ops:
        found = [n for n, a in graph.nodes(data=True)
                 if a.get("kind") != "tensor" and a.get("label") == op]
        if not found:
            continue
        for t in tensors:
            behind = nx.ancestors(graph, t)
            near = [n for n in found if n in behind]
            if near:
                return near[-1]
        return found[-1]
    return tensors[0] if tensors else None


def last_executed(graph) -> str | None:
    """The node that ran in the latest backward step (the largest executed_index)."""
    best, best_index = None, -1
    for node_id, attrs in graph.nodes(data=True):
        index = attrs.get("executed_index")
        if index is not None and index > best_index:
            best, best_index = node_id, index
    return best
