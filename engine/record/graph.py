"""A recorded graph as the engine's graph model: the same networkx DiGraph the window draws.

Node and edge attributes are exactly those of ``engine.graph.build_graph`` (see
``docs/internals.md``), plus what only a recording knows: ``recorded=True`` on the graph,
``type``, ``saved_values``, ``saved_args``, ``next_functions``, ``num_outputs`` and
``grads_incomplete`` on function (and some on accumulate) nodes, and ``value_stats`` /
``grad_stats`` on tensors whose arrays were too large to keep (their ``value`` or ``grad`` is
then None).
"""

from __future__ import annotations

import os

import networkx as nx
import numpy as np

from ..files import GraphFile, Recorded, load
from ..files.codec import decode_array

_TENSOR_KEYS = ("name", "is_leaf", "requires_grad", "retains_grad", "group", "output_nr",
                "version")


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
    graph = nx.DiGraph(recorded=True)
    executed = 0
    for node in recorded.nodes:
        attrs = _node_attrs(node)
        if attrs.get("executed"):
            executed += 1
        graph.add_node(node.id, **attrs)
    for (source_id, target_id), edge in _merged_edges(recorded, graph).items():
        graph.add_edge(source_id, target_id, **edge)
    graph.graph["backward_steps"] = executed
    graph.graph["iterations"] = len(recorded.iterations)
    graph.graph["iteration"] = None
    if recorded.iterations:
        index = _iteration_index(iteration, len(recorded.iterations))
        graph.graph["iteration"] = index
        if index != len(recorded.iterations) - 1:
            _show_iteration(graph, recorded.iterations[index])
    return graph


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


def _node_attrs(node) -> dict:
    a = node.attrs
    if node.kind == "tensor":
        out = {key: a.get(key) for key in _TENSOR_KEYS}
        out.update(
            kind="tensor", label=node.label, aliases=list(a.get("aliases", [])),
            shape=tuple(a.get("shape", ())), dtype=a.get("dtype"), value=node.value,
            grad=node.grad,
        )
        for key in ("value_stats", "grad_stats"):
            if key in a:
                out[key] = a[key]
        return out
    index = a.get("executed_index")
    out = {
        "kind": node.kind, "label": node.label, "node_name": a.get("node_name", node.label),
        "executed": index is not None, "executed_index": index, "group": a.get("group"),
        "type": a.get("type"),
        # Some part of the gradient this node received was too large to keep.
        "grads_incomplete": bool(a.get("grads_incomplete", False)),
    }
    if node.kind == "accumulate":
        out.update(sequence_nr=None, saved={}, freed=False, variable=a.get("variable"))
    else:
        out.update(
            sequence_nr=a.get("sequence_nr"),
            saved={role: (tuple(shape), dtype) for role, (shape, dtype)
                   in a.get("saved", {}).items()},
            freed=bool(a.get("freed", False)),
            saved_values={role: decode_array(v, f"saved_values.{role}", max_elements=4096)
                          for role, v in a.get("saved_values", {}).items()},
            saved_args=dict(a.get("saved_args", {})),
            num_outputs=a.get("num_outputs"),
            next_functions=[None if nf is None else (nf[0], nf[1])
                            for nf in a.get("next_functions", [])],
        )
    return out


def _merged_edges(recorded: Recorded, graph: nx.DiGraph) -> dict:
    """One entry per (source, target): the file's per-use edges merged as the engine merges them.

    The edges into a function node are written slot by slot in ``next_functions`` order, so the
    k-th of them is the k-th non-empty slot.
    """
    merged: dict[tuple[str, str], dict] = {}
    next_slot: dict[str, int] = {}
    for edge in recorded.edges:
        target = graph.nodes[edge.target]
        slot, output_nr = 0, 0
        if target["kind"] == "function":
            slots = [(i, nf) for i, nf in enumerate(target["next_functions"]) if nf is not None]
            k = next_slot.get(edge.target, 0)
            next_slot[edge.target] = k + 1
            if k < len(slots):
                slot, output_nr = slots[k][0], slots[k][1][1]
        elif target["kind"] == "tensor":
            output_nr = graph.nodes[edge.target].get("output_nr") or 0
        key = (edge.source, edge.target)
        entry = merged.get(key)
        if entry is None:
            merged[key] = {"slots": [slot], "grads": [edge.grad], "output_nr": output_nr}
        else:
            entry["slots"].append(slot)
            entry["grads"].append(edge.grad)
    for entry in merged.values():
        entry["count"] = len(entry["slots"])
        entry["grad"] = _sum(entry["grads"])
    return merged


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
