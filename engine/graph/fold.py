"""Folding a module group into one node, so a model reads as its layers."""

from __future__ import annotations

import networkx as nx


def group_id(group: str) -> str:
    """The id of the node that stands for a folded group."""
    return f"group:{group}"


def in_group(node_group: str | None, group: str) -> bool:
    """Whether a node of ``node_group`` belongs to ``group`` (``model.fc1`` is in ``model``)."""
    return bool(node_group) and (node_group == group or node_group.startswith(group + "."))


def fold(graph: nx.DiGraph, group) -> nx.DiGraph:
    """A copy of ``graph`` with the nodes of ``group`` (and its subgroups) replaced by one node.

    ``group`` may also be a collection of groups: all are folded, outer ones first (folding
    ``model`` leaves nothing of ``model.fc1`` to fold).

    The new node (id ``group:<group>``, kind ``group``) takes the place of the group's first
    node in creation order, lists the ``members`` it stands for, and belongs to the enclosing
    group (``model`` for ``model.fc1``). Edges inside the group disappear; edges into and out of
    it are redirected to the new node, merged per neighbour: ``count`` adds up, ``folded`` lists
    the original edges and ``grads`` their gradients (``grad`` is None: shapes differ).
    """
    if not isinstance(group, str):
        out = graph
        for name in sorted(group, key=lambda g: (g.count("."), g)):
            out = _fold_one(out, name)
        return out if out is not graph else graph.copy()
    return _fold_one(graph, group)


def _fold_one(graph: nx.DiGraph, group: str) -> nx.DiGraph:
    members = [n for n, g in graph.nodes(data="group") if in_group(g, group)]
    if not members:
        return graph.copy()
    member_set = set(members)
    folded_id = group_id(group)
    parent = group.rsplit(".", 1)[0] if "." in group else None
    out = nx.DiGraph(**graph.graph)
    for node_id, attrs in graph.nodes(data=True):
        if node_id not in member_set:
            out.add_node(node_id, **attrs)
        elif node_id == members[0]:
            out.add_node(folded_id, kind="group", label=group, group=parent, members=members)
    for u, v, attrs in graph.edges(data=True):
        a = folded_id if u in member_set else u
        b = folded_id if v in member_set else v
        if a == b:
            continue
        if a == u and b == v:
            out.add_edge(u, v, **attrs)
            continue
        edge = out.get_edge_data(a, b)
        if edge is None:
            out.add_edge(a, b, count=0, folded=[], grads=[], grad=None, slots=[], output_nr=0)
            edge = out.get_edge_data(a, b)
        edge["count"] += attrs.get("count", 1)
        edge["folded"].append((u, v))
        edge["grads"].extend(attrs.get("grads", [attrs.get("grad")]))
    return out
