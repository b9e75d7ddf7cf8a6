"""The graph model: everything the user can see of the autograd state, as a networkx DiGraph.

Edges run forward (input -> op -> output), the way the script reads: a leaf tensor feeds its
``AccumulateGrad``, which feeds the ops that used the leaf, down to the named outputs. Nodes do
not keep their output tensors, so an anonymous intermediate is drawn as the function node that
made it; a tensor bound to a name is drawn as its own node fed by its ``grad_fn``.

Nodes are added in creation order (``sequence_nr``; an accumulator just before its first user,
a leaf just before its accumulator, a named output just after its ``grad_fn``): the layout starts
its crossing reduction from that order, which is already a good one.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
import numpy as np

from ..autograd.node import AccumulateGrad
from ..gc_policy import collector_paused
from .groups import infer_groups
from .ids import label_of, tensor_id
from .names import NamedTensor, named_tensors
from .walk import GradFnWalk


def build_graph(
    namespace: dict, last_backward_steps: Iterable = (), previous: nx.DiGraph | None = None
) -> nx.DiGraph:
    """The graph of the tensors named in ``namespace`` and of the ``grad_fn`` graphs behind them.

    Parameters
    ----------
    namespace : dict
        The script's names. Tensors, tensors inside lists, tuples and dicts, and the parameters of
        modules (anything with ``named_parameters``) are found.
    last_backward_steps : iterable of BackwardStep
        The steps of the last backward pass: they mark the nodes that ran (``executed``,
        ``executed_index``) and give each edge the gradient that flowed back along it.
    previous : networkx.DiGraph, optional
        The graph built at the last pause. ``graph.graph`` then lists the ids ``added``,
        ``removed`` and ``changed`` (value or grad) since it, so views redraw only those.

    Returns
    -------
    networkx.DiGraph
        Node ids are stable strings: ``t:<name>`` for named tensors, the path from a named root
        for function nodes (``z/grad_fn:SumBackward0/0:AddBackward0``). Node attribute ``kind`` is
        ``tensor``, ``function`` or ``accumulate``; see ``docs/internals.md`` for the rest. Edge
        attributes: ``grad`` (the gradient that flowed back along the edge, summed over its uses,
        or None), ``grads`` (one per use), ``count`` (uses: ``t1 * t1`` uses ``t1``'s accumulator
        twice), ``slots`` (the consumer's input indices) and ``output_nr``.
    """
    with collector_paused():
        builder = _Builder(named_tensors(namespace), list(last_backward_steps))
        graph = builder.build()
        if previous is not None:
            _mark_changes(graph, previous)
    return graph


class _Builder:
    """One build: walks the ``grad_fn`` graphs once, then emits nodes in creation order."""

    def __init__(self, named: list[NamedTensor], steps: list) -> None:
        self.named = named
        self.by_tensor = {id(entry.tensor): entry for entry in named}
        self.steps = {id(step.node): step for step in steps}
        self.named_ids = {tensor_id(entry.name) for entry in named}

    # -- walking -----------------------------------------------------------------------------------
    def build(self) -> nx.DiGraph:
        walk = GradFnWalk(self.named, lambda fn: isinstance(fn, AccumulateGrad),
                          lambda fn: fn.sequence_nr)
        self.walk = walk
        self.fn_ids = walk.fn_ids
        self.fns = walk.fns
        return self._emit()

    # -- emitting ----------------------------------------------------------------------------------
    def _emit(self) -> nx.DiGraph:
        items = []  # (creation key, discovery index, node id, attributes)
        edges = []  # (source id, target id, attributes)
        first_use = self.walk.first_uses()
        tie = 0
        for fn in self.fns:
            node_id = self.fn_ids[id(fn)]
            if isinstance(fn, AccumulateGrad):
                key = first_use.get(id(fn), -1.0) - 0.5
                leaf_id, leaf = self.walk.leaf_of(fn)
                items.append((key, tie, node_id, self._accumulate_attrs(fn, leaf_id)))
                if leaf_id not in self.named_ids and leaf is not None:
                    items.append((key - 0.25, tie, leaf_id, self._tensor_attrs(leaf, None, None)))
                edges.append((leaf_id, node_id, self._leaf_edge(fn)))
            else:
                items.append((float(fn.sequence_nr), tie, node_id, self._function_attrs(fn)))
                edges.extend(self._input_edges(fn, node_id))
            tie += 1
        for entry in self.named:
            t = entry.tensor
            node_id = tensor_id(entry.name)
            if t.grad_fn is not None:
                fn_id = self.fn_ids[id(t.grad_fn)]
                key = float(t.grad_fn.sequence_nr) + 0.25
                edges.append((fn_id, node_id, self._output_edge(t)))
            else:
                acc = self._live_accumulator(t)
                key = first_use.get(id(acc), 0.0) - 0.75 if acc is not None else -1.0
            items.append((key, tie, node_id, self._tensor_attrs(t, entry.name, entry)))
            tie += 1
        items.sort(key=lambda item: (item[0], item[1]))
        nodes = [(node_id, attrs) for _, _, node_id, attrs in items]
        infer_groups(nodes, edges)
        graph = nx.DiGraph(backward_steps=len(self.steps))
        graph.add_nodes_from(nodes)
        graph.add_edges_from(edges)
        return graph

    def _live_accumulator(self, t):
        # The accumulator is cached behind a weak reference; only one already in a graph is drawn.
        ref = getattr(t, "_accumulator", None)
        acc = ref() if ref is not None else None
        return acc if acc is not None and id(acc) in self.fn_ids else None

    # -- attributes --------------------------------------------------------------------------------
    def _tensor_attrs(self, t, name, entry: NamedTensor | None) -> dict:
        grad = t._grad
        return {
            "kind": "tensor",
            "label": name if name is not None else shape_text(t.shape),
            "name": name,
            "aliases": list(entry.aliases) if entry is not None else [],
            "is_leaf": t.grad_fn is None,
            "requires_grad": t.requires_grad,
            "retains_grad": t.retains_grad,
            "shape": tuple(t.shape),
            "dtype": str(t.dtype),
            # Copies: the graph is a snapshot, and the optimizer updates parameters in place.
            "value": np.array(t._data, copy=True),
            "grad": None if grad is None else np.array(grad._data, copy=True),
            "group": entry.group if entry is not None else None,
            "output_nr": t._output_nr,
            "version": t._version.value,
        }

    def _common_attrs(self, fn) -> dict:
        step = self.steps.get(id(fn))
        name = fn.name()
        return {
            "label": label_of(name),
            "node_name": name,
            "executed": step is not None,
            "executed_index": step.index if step is not None else None,
            "group": fn.metadata.get("module") if fn.metadata else None,
        }

    def _function_attrs(self, fn) -> dict:
        attrs = self._common_attrs(fn)
        attrs.update(kind="function", sequence_nr=fn.sequence_nr, saved=_saved(fn), freed=fn.freed,
                     inputs=len(fn.next_functions))
        return attrs

    def _accumulate_attrs(self, acc, leaf_id: str) -> dict:
        attrs = self._common_attrs(acc)
        entry = self.by_tensor.get(id(acc.variable))
        if attrs["group"] is None and entry is not None:
            attrs["group"] = entry.group
        attrs.update(kind="accumulate", sequence_nr=None, saved={}, freed=False, variable=leaf_id)
        return attrs

    # -- edges -------------------------------------------------------------------------------------
    def _input_edges(self, fn, node_id: str) -> list:
        step = self.steps.get(id(fn))
        merged: dict[str, dict] = {}
        for i, (nxt, nr) in enumerate(fn.next_functions):
            if nxt is None:
                continue
            grad = step.grads_out[i] if step is not None and i < len(step.grads_out) else None
            source = self.fn_ids[id(nxt)]
            edge = merged.get(source)
            if edge is None:
                merged[source] = {"slots": [i], "grads": [grad], "output_nr": nr}
            else:
                edge["slots"].append(i)
                edge["grads"].append(grad)
        out = []
        for source, edge in merged.items():
            edge["count"] = len(edge["slots"])
            edge["grad"] = _sum(edge["grads"])
            out.append((source, node_id, edge))
        return out

    def _leaf_edge(self, acc) -> dict:
        step = self.steps.get(id(acc))
        grad = None
        if step is not None:
            writes = [g for t, g in step.leaf_writes if t is acc.variable]
            grad = _sum(writes) if writes else (step.grads_in[0] if step.grads_in else None)
        return {"slots": [0], "grads": [grad], "grad": grad, "count": 1, "output_nr": 0}

    def _output_edge(self, t) -> dict:
        step = self.steps.get(id(t.grad_fn))
        nr = t._output_nr
        grad = step.grads_in[nr] if step is not None and nr < len(step.grads_in) else None
        return {"slots": [0], "grads": [grad], "grad": grad, "count": 1, "output_nr": nr}


def _saved(fn) -> dict:
    """Role -> (shape, dtype) of what a node saved for backward; empty once freed."""
    if getattr(fn, "freed", False):
        return {}  # (asked first: after a backward, every node of a 10,000-node graph is)
    try:
        saved = fn.saved_tensors
    except RuntimeError:  # freed by a backward without retain_graph
        return {}
    out = {}
    for role, value in saved.items():
        array = getattr(value, "_data", value)
        out[role] = (tuple(np.shape(array)), str(getattr(value, "dtype", np.asarray(array).dtype)))
    return out


def _sum(grads: list):
    present = [g for g in grads if g is not None]
    if not present:
        return None
    total = present[0]  # a backward step's own array: nothing writes to it afterwards
    for g in present[1:]:
        total = total + g
    return total


def shape_text(shape) -> str:
    """A shape as Python writes a tuple: ``()``, ``(3,)``, ``(2, 3)``."""
    return str(tuple(int(n) for n in shape))


def _mark_changes(graph: nx.DiGraph, previous: nx.DiGraph) -> None:
    """Record in ``graph.graph`` which ids appeared, disappeared or changed value or grad."""
    added, changed = [], []
    for node_id, attrs in graph.nodes(data=True):
        if node_id not in previous:
            added.append(node_id)
            continue
        before = previous.nodes[node_id]
        if attrs["kind"] == "tensor":
            if not _same_array(attrs["value"], before.get("value")) or not _same_array(
                attrs["grad"], before.get("grad")
            ):
                changed.append(node_id)
        elif attrs["executed_index"] != before.get("executed_index"):
            changed.append(node_id)
    graph.graph["added"] = added
    graph.graph["removed"] = [n for n in previous if n not in graph]
    graph.graph["changed"] = changed


def same_graph(graph: nx.DiGraph, previous: nx.DiGraph | None) -> bool:
    """Whether ``graph`` shows exactly what ``previous`` showed: the same node ids in order,
    the same edges in order, every attribute the same (arrays bit for bit); only
    ``graph.graph``, what changed since, may differ. A statement that touches no tensor leaves
    a 10,000-node graph as it was, and the window keeps the one it has instead of receiving
    3 MB again. Cheap when something changed (``changed`` says so first)."""
    if previous is None or graph is previous:
        return graph is previous
    meta = graph.graph
    if meta.get("added") or meta.get("removed") or meta.get("changed"):
        return False
    if len(graph._node) != len(previous._node) or list(graph._node) != list(previous._node):
        return False
    other_nodes, other_adj = previous._node, previous._adj
    for node_id, attrs in graph._node.items():
        other = other_nodes[node_id]
        if attrs.get("kind") in _PLAIN_KINDS and other.get("kind") == attrs.get("kind"):
            if attrs != other:  # strings, numbers, flags and tuples only: dict's own ==
                return False
        elif not _same_value(attrs, other):
            return False
    for u, nbrs in graph._adj.items():
        other = other_adj[u]
        if len(nbrs) != len(other) or list(nbrs) != list(other):
            return False
        for v, attrs in nbrs.items():
            if not _same_value(attrs, other[v]):
                return False
    return True


_PLAIN_KINDS = ("function", "accumulate")
"""Nodes whose attributes hold no array (``_function_attrs``, ``_accumulate_attrs``)."""


def _same_value(a, b) -> bool:
    """Equal, and of the same types all the way down; arrays bit for bit (a NaN is the same
    NaN, -0.0 is not 0.0: when in doubt, not the same)."""
    return a is b or (type(a) is type(b) and _SAME.get(type(a), _equal)(a, b))


def _equal(a, b) -> bool:
    return a == b


def _same_items(a, b) -> bool:
    # the loop written out: a 10,000-node graph is 200,000 values
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is not y and (type(x) is not type(y) or not _SAME.get(type(x), _equal)(x, y)):
            return False
    return True


def _same_dicts(a, b) -> bool:
    return a.keys() == b.keys() and _same_items([a[k] for k in a], [b[k] for k in a])


def _same_bits(a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


_SAME = {np.ndarray: _same_bits, list: _same_items, tuple: _same_items, dict: _same_dicts}


def _same_array(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
