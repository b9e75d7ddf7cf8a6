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
                         members=members[name], fold_key=name)
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


def run_id(first: str) -> str:
    """The id of the node that stands for a folded run starting at node ``first``."""
    return f"run:{first}"


def repeated_runs(graph: nx.DiGraph, min_length: int = 4) -> list[list]:
    """Chains of one op repeated: ``x = x * 1.001`` two thousand times is one run of 2,000
    ``MulBackward0``. A run is a path of function nodes with the same label and group, each
    fed only by the one before it and feeding only the one after it; runs shorter than
    ``min_length`` are left out. In creation order, each run from its first op."""
    nodes = graph.nodes
    succ, pred = graph._succ, graph._pred

    def key(node_id):
        attrs = nodes[node_id]
        if attrs.get("kind") != "function":
            return None
        return attrs.get("label"), attrs.get("group")

    runs, seen = [], set()
    for node_id in graph.nodes:
        if node_id in seen:
            continue
        k = key(node_id)
        if k is None:
            continue
        # Start only where the previous node does not continue the run.
        before = pred[node_id]
        if len(before) == 1:
            (p,) = before
            if len(succ[p]) == 1 and key(p) == k:
                continue
        run = [node_id]
        current = node_id
        while len(succ[current]) == 1:
            (nxt,) = succ[current]
            if len(pred[nxt]) != 1 or key(nxt) != k or nxt in seen:
                break
            run.append(nxt)
            current = nxt
        seen.update(run)
        if len(run) >= min_length:
            runs.append(run)
    return runs


def fold_runs(graph: nx.DiGraph, runs) -> nx.DiGraph:
    """A copy of ``graph`` with each run (a list of node ids, from :func:`repeated_runs`)
    replaced by one ``kind="group"`` node ``run:<first>`` labelled ``MulBackward0 ×2000``, with
    ``members``, ``fold_key`` (its id) and ``executed`` if any member ran."""
    owner_of = {}
    first = {}
    for run in runs:
        rid = run_id(run[0])
        first[run[0]] = run
        for node_id in run:
            owner_of[node_id] = rid
    out = nx.DiGraph(**graph.graph)
    for node_id, attrs in graph.nodes(data=True):
        if node_id not in owner_of:
            out.add_node(node_id, **attrs)
        elif node_id in first:
            run = first[node_id]
            member_attrs = [graph.nodes[m] for m in run]
            out.add_node(run_id(node_id), kind="group", label=f"{attrs.get('label')} ×{len(run)}",
                         group=attrs.get("group"), members=list(run), fold_key=run_id(node_id),
                         run=True, executed=any(a.get("executed") for a in member_attrs))
    for u, v, attrs in graph.edges(data=True):
        a = owner_of.get(u, u)
        b = owner_of.get(v, v)
        if a == b:
            continue
        if a == u and b == v:
            out.add_edge(u, v, **attrs)
            continue
        out.add_edge(a, b, **attrs, folded=[(u, v)])
    return out
