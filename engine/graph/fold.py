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
    groups = [group] if isinstance(group, str) else list(group)
    return _fold_all(graph, set(groups))


def _owner(node_group: str | None, groups: set) -> str | None:
    """The outermost of ``groups`` that contains ``node_group`` (``model`` before ``model.fc1``)."""
    if not node_group:
        return None
    prefix = ""
    for part in node_group.split("."):
        prefix = part if not prefix else f"{prefix}.{part}"
        if prefix in groups:
            return prefix
    return None


def _fold_all(graph: nx.DiGraph, groups: set) -> nx.DiGraph:
    # One pass over nodes and edges whatever the number of groups: a model with hundreds of
    # modules folds in the time of one copy of its graph.
    owner_of = {}
    members: dict[str, list] = {}
    for node_id, g in graph.nodes(data="group"):
        name = _owner(g, groups)
        if name is not None:
            owner_of[node_id] = group_id(name)
            members.setdefault(name, []).append(node_id)
    out = nx.DiGraph(**graph.graph)
    first = {ids[0]: name for name, ids in members.items()}
    for node_id, attrs in graph.nodes(data=True):
        if node_id not in owner_of:
            out.add_node(node_id, **attrs)
        elif node_id in first:
            name = first[node_id]
            parent = name.rsplit(".", 1)[0] if "." in name else None
            out.add_node(group_id(name), kind="group", label=name, group=parent,
                         members=members[name])
    for u, v, attrs in graph.edges(data=True):
        a = owner_of.get(u, u)
        b = owner_of.get(v, v)
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
