"""Folding a module group, or what repeats, into one node: a model reads as its layers."""

from __future__ import annotations

import re
import threading
import weakref

import networkx as nx
import numpy as np

from ..gc_policy import collector_paused
from .blocks import Run, repeated_blocks
from .layout import STRUCTURE


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


def _copy_of_graph_dict(graph: nx.DiGraph) -> nx.DiGraph:
    """An empty graph with ``graph``'s graph attributes, less the token that stands for its
    edges (``layout.STRUCTURE``): a folded graph has other edges."""
    out = nx.DiGraph(**graph.graph)
    out.graph.pop(STRUCTURE, None)
    return out


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
    # modules folds in the time of one copy of its graph (a 100,000-node recording too: the
    # owner is looked up once per distinct group name, and the nodes and edges that stay are
    # added in bulk).
    owner_of = {}
    members: dict[str, list] = {}
    # node group -> (box id, its members' list) or None: one dict lookup per node
    boxes: dict = {}
    nodes = graph._node  # (networkx's data views cost a generator step per node)
    for node_id, attrs in nodes.items():
        g = attrs.get("group")
        if not g:
            continue
        box = boxes.get(g, False)
        if box is False:
            name = _owner(g, groups)
            box = boxes[g] = None if name is None else (
                group_id(name), members.setdefault(name, []))
        if box is not None:
            owner_of[node_id] = box[0]
            box[1].append(node_id)
    out = _copy_of_graph_dict(graph)
    first = {ids[0]: name for name, ids in members.items()}
    kept = []
    for node_id, attrs in nodes.items():
        if node_id not in owner_of:
            kept.append((node_id, attrs))
        elif node_id in first:
            out.add_nodes_from(kept)
            kept = []
            name = first[node_id]
            parent = name.rsplit(".", 1)[0] if "." in name else None
            out.add_node(group_id(name), kind="group", label=name, group=parent,
                         members=members[name], fold_key=name)
    out.add_nodes_from(kept)
    _move_edges(graph, out, owner_of, _into_group)
    return out


def refold(graph: nx.DiGraph, template: nx.DiGraph) -> nx.DiGraph:
    """``fold(graph, groups)`` from ``template``, the same fold of a graph with the same
    structure (the same ``layout.STRUCTURE`` token and node ids: a replay's every step).

    The boxes, their members and the edges' ends are ``template``'s; node and edge attributes
    (values, grads, executed flags) are ``graph``'s, each merged edge's gradients gathered again
    from the edges it stands for. No group lookups and no networkx edge checks: a 100,000-node
    recording's fold costs a copy of its attributes per step instead of 0.4 s.
    """
    nodes, succ = graph._node, graph._succ
    out = _copy_of_graph_dict(graph)
    made = {n: dict(nodes[n]) if n in nodes else dict(attrs)
            for n, attrs in template._node.items()}
    adj: dict = {n: {} for n in made}
    pred: dict = {n: {} for n in made}
    for a, neighbours in template._succ.items():
        row = succ.get(a)
        for b, attrs in neighbours.items():
            kept = row is not None and b in row
            if kept:
                edge = dict(row[b])
            else:  # a merged edge: what its member edges carry now
                merged: dict = {}
                for u, v in attrs["folded"]:
                    _into_group(merged, a, b, u, v, succ[u][v])
                edge = merged[a, b]
            adj[a][b] = edge
            pred[b][a] = edge
    # (a new graph's own dicts, before anything read them: networkx caches its views lazily)
    out._node, out._adj, out._succ, out._pred = made, adj, adj, pred
    return out


def _move_edges(graph: nx.DiGraph, out: nx.DiGraph, owner_of: dict, add_moved) -> None:
    """Copy ``graph``'s edges into ``out`` with each end moved to the box that holds it
    (``owner_of``); edges inside one box disappear, ``add_moved(moved, a, b, u, v, attrs)``
    merges the edge u -> v moved to a -> b into ``moved`` ({(a, b): attrs}). Moved edges go in
    first, in the order first met, then the others: both in bulk (edge by edge, networkx
    checks both ends each time, a second per 100,000 edges)."""
    kept, moved = [], {}
    get = owner_of.get
    for u, neighbours in graph.adjacency():
        a = get(u, u)
        for v, attrs in neighbours.items():
            b = get(v, v)
            if a == b:
                continue
            if a == u and b == v:
                kept.append((u, v, attrs))
            else:
                add_moved(moved, a, b, u, v, attrs)
    out.add_edges_from((a, b, attrs) for (a, b), attrs in moved.items())
    out.add_edges_from(kept)


def _into_group(moved, a, b, u, v, attrs) -> None:
    # Merged per neighbour; grad is None: the members' shapes differ.
    edge = moved.get((a, b))
    if edge is None:
        edge = moved[a, b] = {"count": 0, "folded": [], "grads": [], "grad": None, "slots": [],
                              "output_nr": 0}
    edge["count"] += attrs.get("count", 1)
    edge["folded"].append((u, v))
    edge["grads"].extend(attrs.get("grads", [attrs.get("grad")]))


def _into_run(moved, a, b, u, v, attrs) -> None:
    # One edge keeps what it carried. Several merge: a block's input that several of its ops
    # read (a residual) sums what flowed back to that one output; else grad is None.
    edge = moved.get((a, b))
    if edge is None:
        moved[a, b] = {**attrs, "folded": [(u, v)]}
        return
    first = edge["folded"][0]
    grads = list(edge.get("grads") or [edge.get("grad")])
    grads.extend(attrs.get("grads") or [attrs.get("grad")])
    same_output = (first[0] == u and edge.get("output_nr") == attrs.get("output_nr")
                   and all(g is not None for g in grads))
    summed = None
    if same_output and len({np.shape(g) for g in grads}) == 1:
        summed = grads[0]
        for g in grads[1:]:
            summed = summed + g
    edge.update(count=edge.get("count", 1) + attrs.get("count", 1), grads=grads, grad=summed,
                slots=list(edge.get("slots") or ()) + list(attrs.get("slots") or ()))
    edge["folded"].append((u, v))


def run_id(first: str) -> str:
    """The id of the node that stands for a folded run starting at node ``first``."""
    return f"run:{first}"


_RUNS_FOUND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""graph -> {min_length: runs}: the window asks twice of one graph (the controller's thread, to
know whether the whole graph's layout will be needed, then the view), 0.1 s each at 10,000
nodes. A graph model is not changed once built; a changed copy is another object, and a graph
that shares another's node and edge dicts (``wire.GraphUnchanged``) shares its answers."""
_RUNS_LOCK = threading.Lock()


def repeated_runs(graph: nx.DiGraph, min_length: int = 4) -> list[Run]:
    """What repeats, to fold: chains of one op (``x = x * 1.001`` two thousand times is one run
    of 2,000 ``MulBackward0``) and repeated blocks of several ops (a loop's body, see
    :mod:`engine.graph.blocks`), each ``min_length`` times or more.

    A run of one op is a path of function nodes with the same label and group, each fed only by
    the one before it and feeding only the one after it. Blocks are looked for first: where a
    body holds a run of one op, the body folds. Each :class:`~engine.graph.blocks.Run` lists
    its ops from the first (``run[0]``, which names the box), in creation order of their first
    op. Found once per graph object and ``min_length`` (a new list each call)."""
    with _RUNS_LOCK:
        found = _RUNS_FOUND.get(graph)
        if found is None:  # a graph sharing another's nodes and edges (the worker's "unchanged")
            found = next((runs_of for other, runs_of in list(_RUNS_FOUND.items())
                          if other._node is graph._node and other._adj is graph._adj), None)
            if found is not None:
                _RUNS_FOUND[graph] = found
        runs = found.get(min_length) if found is not None else None
    if runs is None:
        with collector_paused():  # tens of thousands of small objects, no cycles
            runs = _repeated_runs(graph, min_length)
        with _RUNS_LOCK:
            _RUNS_FOUND.setdefault(graph, {})[min_length] = runs
    return list(runs)


def _repeated_runs(graph: nx.DiGraph, min_length: int) -> list[Run]:
    runs = repeated_blocks(graph, min_length)
    taken = {n for run in runs for n in run}
    succ, pred = graph._succ, graph._pred
    # each node's key once, in one pass over the plain dicts: a 100,000-node graph asks ~3
    # times per node, and networkx's node view costs a call each time
    keys = {n: (a.get("label"), a.get("group"))
            if a.get("kind") == "function" and n not in taken else None
            for n, a in graph._node.items()}
    key = keys.__getitem__

    seen = set()
    for node_id in keys:
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
            runs.append(Run(run, [k[0]], len(run)))
    if len(runs) > 1:
        position = {n: i for i, n in enumerate(graph)}
        runs.sort(key=lambda run: position[run[0]])
    return runs


_INDEX = re.compile(r"\[(\d+)\]")


def side_by_side(graph: nx.DiGraph, min_count: int = 4) -> list[Run]:
    """What repeats across a layer, to fold: ``min_count`` or more nodes of one kind and group
    whose labels differ only in their ``[k]`` indices, with the same inputs and consumers.

    A loop that keeps each step's output (``outs.append(head(h))`` thirty times, then
    ``torch.stack(outs)``) makes thirty tensors ``outs[0]`` ... ``outs[29]`` in one layer, each
    fed by the folded ``head`` and feeding the stack: drawn, a layer thirty boxes wide that makes
    the whole graph unreadable at fit. Such nodes cannot feed one another (each would feed
    itself), so folding them makes no cycle. Only labels with an index are looked at (an op's
    never has one): a 100,000-node graph is one cheap pass. Each
    :class:`~engine.graph.blocks.Run` (for :func:`fold_runs`) lists them in creation order; its
    one-label unit reads ``outs[0..29]`` (``outs[·]`` where the indices are not consecutive)."""
    sets: dict[tuple, list] = {}
    succ, pred = graph._succ, graph._pred
    for node_id, attrs in graph._node.items():
        label = attrs.get("label")
        if not isinstance(label, str) or "[" not in label or attrs.get("kind") == "group":
            continue
        stem = _INDEX.sub("[]", label)
        before, after = pred[node_id], succ[node_id]
        if stem == label or not (before or after):
            continue
        key = (attrs.get("kind"), attrs.get("group"), stem, frozenset(before), frozenset(after))
        sets.setdefault(key, []).append(node_id)
    nodes = graph._node
    return [Run(ids, [_common_label([nodes[n]["label"] for n in ids])], len(ids))
            for ids in sets.values() if len(ids) >= min_count]


def _common_label(labels: list[str]) -> str:
    """``outs[0..29]`` for ``outs[0]`` ... ``outs[29]``; ``AddmmBackward0`` for labels alike."""
    indices = [_INDEX.findall(label) for label in labels]
    varying = [k for k in range(len(indices[0])) if len({i[k] for i in indices}) > 1]
    if not varying:
        return labels[0]
    spans = iter(_INDEX.finditer(labels[0]))
    pieces, at = [], 0
    for k, match in enumerate(spans):
        if k in varying:
            values = sorted(int(i[k]) for i in indices)
            consecutive = values == list(range(values[0], values[0] + len(values)))
            inner = f"{values[0]}..{values[-1]}" if consecutive else "\u00b7"
            pieces.append(labels[0][at:match.start()] + f"[{inner}]")
            at = match.end()
    return "".join(pieces) + labels[0][at:]


def fold_runs(graph: nx.DiGraph, runs) -> nx.DiGraph:
    """A copy of ``graph`` with each run (from :func:`repeated_runs`; a plain list of ids is a
    run of one op) replaced by one ``kind="group"`` node ``run:<first>`` labelled
    ``MulBackward0 ×2000`` or ``×6 MmBackward0 → AddBackward0 → ReluBackward0``, with
    ``members``, ``fold_key`` (its id), ``run=True``, ``count``, ``unit`` (the labels of one
    repetition) and ``executed`` if any member ran. Edges into and out of a run move to its
    node, merged per neighbour (``count`` adds up, ``folded`` lists the original edges)."""
    owner_of = {}
    first = {}
    for run in runs:
        rid = run_id(run[0])
        first[run[0]] = run
        for node_id in run:
            owner_of[node_id] = rid
    out = _copy_of_graph_dict(graph)
    for node_id, attrs in graph.nodes(data=True):
        if node_id not in owner_of:
            out.add_node(node_id, **attrs)
        elif node_id in first:
            run = first[node_id]
            if not isinstance(run, Run):
                run = Run(run, [attrs.get("label")], len(run))
            out.add_node(run_id(node_id), kind="group", label=run.label,
                         group=attrs.get("group"), members=list(run), fold_key=run_id(node_id),
                         run=True, count=run.count, unit=list(run.unit),
                         executed=any(graph.nodes[m].get("executed") for m in run))
    _move_edges(graph, out, owner_of, _into_run)
    return out
