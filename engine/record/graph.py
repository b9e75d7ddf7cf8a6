"""A recorded graph as the engine's graph model: the same networkx DiGraph the window draws.

Node and edge attributes are exactly those of ``engine.graph.build_graph`` (see
``docs/internals.md``), plus what only a recording knows: ``recorded=True`` on the graph,
``type``, ``saved_values``, ``saved_args``, ``next_functions``, ``num_outputs`` and
``grads_incomplete`` on function (and some on accumulate) nodes, and ``value_stats`` /
``grad_stats`` on tensors whose arrays were too large to keep (their ``value`` or ``grad`` is
then None).
"""

from __future__ import annotations

import itertools
import os

import networkx as nx
import numpy as np

from ..files import GraphFile, Recorded, load
from ..files.codec import decode_array
from ..gc_policy import collector_paused, keep_if_large


def recorded_graph(source, iteration: int = -1) -> nx.DiGraph:
    """The graph model of a recorded file.

    Parameters
    ----------
    source : str, os.PathLike, GraphFile or Recorded
        A ``.gstep`` path, a loaded graph file or its ``recorded`` part.
    iteration : int
        Which recorded training iteration's tensors to show (negative counts from the end). The
        graph itself is the last one recorded; for an earlier iteration the named tensors take that
        iteration's values and grads, and edges (whose gradients were not kept) carry None.

    Returns
    -------
    networkx.DiGraph
        ``graph.graph`` holds ``recorded=True``, ``backward_steps`` (nodes executed),
        ``iteration`` (the index shown, or None without iterations) and ``iterations`` (how many).

    Raises
    ------
    ValueError
        When the file holds no recorded graph, or ``iteration`` is out of range.
    """
    recorded = _recorded_of(source)
    with collector_paused():
        graph = nx.DiGraph(recorded=True)
        nodes = recorded.nodes
        attrs = list(map(_node_attrs, nodes))
        ids = [node.id for node in nodes]
        _assemble(graph, ids, attrs, _merged_edges(recorded, dict(zip(ids, attrs))))
        keep_if_large(len(ids))  # kept while the recording is open (engine/gc_policy.py)
    graph.graph["backward_steps"] = sum(1 for a in attrs if a.get("executed"))
    graph.graph["iterations"] = len(recorded.iterations)
    graph.graph["iteration"] = None
    if recorded.iterations:
        index = _iteration_index(iteration, len(recorded.iterations))
        graph.graph["iteration"] = index
        if index != len(recorded.iterations) - 1:
            _show_iteration(graph, recorded.iterations[index])
    return graph


def _assemble(graph: nx.DiGraph, ids: list, attrs: list, edges: dict) -> None:
    """Fill an empty DiGraph with nodes and merged edges, writing its dicts directly:
    ``add_nodes_from`` and ``add_edges_from`` copy every attribute dict and check every node
    again, a second per 100,000 nodes; the dicts here are new and the ids unique."""
    graph._node.update(zip(ids, attrs))
    graph._adj.update((node_id, {}) for node_id in ids)
    graph._pred.update((node_id, {}) for node_id in ids)
    succ, pred = graph._adj, graph._pred
    for (u, v), edge in edges.items():
        succ[u][v] = edge
        pred[v][u] = edge
    nx._clear_cache(graph)


def _recorded_of(source) -> Recorded:
    if isinstance(source, (str, os.PathLike)):
        source = load(source)
    if isinstance(source, GraphFile):
        source = source.recorded
    if not isinstance(source, Recorded):
        raise ValueError("this file holds no recorded graph")
    return source


def _iteration_index(iteration: int, count: int) -> int:
    index = iteration + count if iteration < 0 else iteration
    if not 0 <= index < count:
        raise ValueError(f"iteration {iteration} out of range: {count} recorded")
    return index


def _pair(nf):
    return None if nf is None else (nf[0], nf[1])


def _node_attrs(node) -> dict:
    a = node.attrs
    get = a.get
    kind, label = node.kind, node.label
    if kind == "tensor":
        out = {
            "name": get("name"), "is_leaf": get("is_leaf"), "requires_grad": get("requires_grad"),
            "retains_grad": get("retains_grad"), "group": get("group"),
            "output_nr": get("output_nr"), "version": get("version"), "kind": "tensor",
            "label": label, "aliases": list(get("aliases", ())), "shape": tuple(get("shape", ())),
            "dtype": get("dtype"), "value": node.value, "grad": node.grad,
        }
        if "value_stats" in a:
            out["value_stats"] = a["value_stats"]
        if "grad_stats" in a:
            out["grad_stats"] = a["grad_stats"]
        return out
    index = get("executed_index")
    if kind == "accumulate":
        return {
            "kind": kind, "label": label, "node_name": get("node_name", label),
            "executed": index is not None, "executed_index": index, "group": get("group"),
            "type": get("type"), "grads_incomplete": bool(get("grads_incomplete", False)),
            "sequence_nr": None, "saved": {}, "freed": False, "variable": get("variable"),
        }
    saved, values, args = get("saved"), get("saved_values"), get("saved_args")
    return {
        "kind": kind, "label": label, "node_name": get("node_name", label),
        "executed": index is not None, "executed_index": index, "group": get("group"),
        "type": get("type"),
        # Some part of the gradient this node received was too large to keep.
        "grads_incomplete": bool(get("grads_incomplete", False)),
        "sequence_nr": get("sequence_nr"),
        "saved": {role: (tuple(shape), dtype) for role, (shape, dtype) in saved.items()}
        if saved else {},
        "freed": bool(get("freed", False)),
        "saved_values": {role: decode_array(v, f"saved_values.{role}", max_elements=4096)
                         for role, v in values.items()} if values else {},
        "saved_args": dict(args) if args else {},
        "num_outputs": get("num_outputs"),
        "next_functions": list(map(_pair, get("next_functions", ()))),
    }


def _merged_edges(recorded: Recorded, by_id: dict) -> dict:
    """One entry per (source, target): the file's per-use edges merged as the engine merges them.

    The edges into a function node are written slot by slot in ``next_functions`` order, so the
    k-th of them is the k-th non-empty slot (slot 0, output 0 past the last).
    """
    merged: dict[tuple[str, str], dict] = {}
    slots_of: dict[str, object] = {}  # target id -> what its next edges' (slot, output_nr) are
    get, absent = merged.get, (0, 0)
    for edge in recorded.edges:
        source, target_id, grad = edge.source, edge.target, edge.grad
        slots = slots_of.get(target_id)
        if slots is None:
            slots = slots_of[target_id] = _slots(by_id[target_id])
        slot, output_nr = next(slots, absent)
        key = (source, target_id)
        entry = get(key)
        if entry is None:
            merged[key] = {"slots": [slot], "grads": [grad], "output_nr": output_nr,
                           "count": 1, "grad": grad}
        else:
            entry["slots"].append(slot)
            entry["grads"].append(grad)
            entry["count"] += 1
            entry["grad"] = _sum(entry["grads"])
    return merged


def _slots(target: dict):
    """The (slot, output_nr) of each edge into ``target``, in the file's order."""
    kind = target["kind"]
    if kind == "function":
        return iter([(i, nf[1]) for i, nf in enumerate(target["next_functions"])
                     if nf is not None])
    return itertools.repeat((0, (target.get("output_nr") or 0) if kind == "tensor" else 0))


def _sum(grads: list):
    present = [g for g in grads if g is not None]
    if not present:
        return None
    total = present[0]
    for g in present[1:]:
        total = total + g
    return total


def _show_iteration(graph: nx.DiGraph, state) -> None:
    by_name = {attrs.get("name"): node_id for node_id, attrs in graph.nodes(data=True)
               if attrs["kind"] == "tensor" and attrs.get("name")}
    for name, saved in state.tensors.items():
        node_id = by_name.get(name)
        if node_id is not None:
            graph.nodes[node_id]["value"] = np.array(saved.value, copy=True)
            graph.nodes[node_id]["grad"] = None if saved.grad is None else np.array(saved.grad)
    for _, _, edge in graph.edges(data=True):
        edge["grad"] = None
        edge["grads"] = [None] * edge["count"]
