"""The recorded backward pass as steps, in the order PyTorch ran it, for a debugger to step through.

Each :class:`ReplayStep` has the fields of the engine's ``BackwardStep`` (``index``, ``node``,
``grads_in``, ``grads_out``, ``leaf_writes``), with ids instead of live objects: ``node`` is a
:class:`ReplayNode` (``.name()`` like a torch node), and ``leaf_writes`` pairs leaf tensor ids with
the contribution written into their ``.grad``. Nothing is run: every number is what torch
computed. ``twin`` says whether the engine has the same node (``MulBackward0`` does,
``ConvolutionBackward0`` does not); a window shows either kind, and only twins can be re-run in
the engine.
"""

from __future__ import annotations

import bisect
import weakref
from dataclasses import dataclass, field
from functools import lru_cache

import networkx as nx

from .graph import recorded_graph

ACCUMULATE_NAME = "torch::autograd::AccumulateGrad"


@dataclass(frozen=True)
class ReplayNode:
    """A recorded node: its graph id, PyTorch's name, kind and module group."""

    id: str
    node_name: str
    kind: str
    group: str | None = None

    def name(self) -> str:
        """PyTorch's node name (``MulBackward0``), as ``torch.autograd.graph.Node.name()``."""
        return self.node_name


@dataclass
class ReplayStep:
    """One node torch executed, with the gradients it received and sent (numpy arrays or None)."""

    index: int
    node: ReplayNode
    grads_in: list = field(default_factory=list)
    grads_out: list = field(default_factory=list)
    leaf_writes: list = field(default_factory=list)  # (leaf tensor id, contribution array)
    twin: bool = False

    @property
    def node_id(self) -> str:
        return self.node.id

    def __repr__(self) -> str:
        return f"ReplayStep({self.index}, {self.node.node_name})"


def replay_steps(source) -> list[ReplayStep]:
    """The recorded backward pass, one step per executed node, in PyTorch's execution order.

    Parameters
    ----------
    source : str, os.PathLike, GraphFile, Recorded or networkx.DiGraph
        A recorded file (or its graph from ``recorded_graph``).

    Returns
    -------
    list of ReplayStep
        Empty when the recording watched no backward pass.
    """
    graph = source if isinstance(source, nx.DiGraph) else recorded_graph(source)
    executed = sorted((attrs["executed_index"], node_id)
                      for node_id, attrs in graph.nodes(data=True)
                      if attrs["kind"] != "tensor" and attrs.get("executed_index") is not None)
    return [_step(graph, k, node_id) for k, (_, node_id) in enumerate(executed)]


@dataclass(frozen=True)
class _Order:
    """A recorded graph's nodes as a replay walks them: those that ran, by ``executed_index``
    (``indices``), those that never did, and the tensors."""

    executed: list
    indices: list
    never: list
    tensors: list
    size: int


_orders: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _order_of(graph: nx.DiGraph) -> _Order:
    """``graph``'s ``_Order``, made once per graph (a replay makes a graph per step from one
    recorded graph: sorting its nodes each time was a pass over 100,000 of them)."""
    order = _orders.get(graph)
    if order is None or order.size != len(graph._node):
        ran, never, tensors = [], [], []
        for n, a in graph._node.items():
            if a["kind"] == "tensor":
                tensors.append(n)
            elif a.get("executed_index") is None:
                never.append(n)
            else:
                ran.append((a["executed_index"], n))
        ran.sort()
        order = _orders[graph] = _Order([n for _, n in ran], [i for i, _ in ran], never,
                                        tensors, len(graph._node))
    return order


def graph_at_step(graph: nx.DiGraph, k: int) -> nx.DiGraph:
    """A copy of a recorded graph as it stood after the first ``k`` replay steps.

    Nodes that had not run yet are not ``executed``; an edge carries its gradient once the node
    that sent it has run (the consumer for an input edge, the producer for a named output); a
    tensor shows its grad once its accumulator (or, for a retained grad, its ``grad_fn``) has
    run. ``k = 0`` is the graph before the backward, ``k = len(replay_steps(graph))`` the whole
    recording. ``graph.graph["replay_step"]`` is ``k``.

    The copy shares every attribute dict that step ``k`` leaves as it is with ``graph`` (at the
    end of the recording, all of them): treat both as read-only. Copying 100,000 nodes' dicts
    took seconds, and a replay makes one graph per step.
    """
    out = nx.DiGraph()
    out.graph.update(graph.graph, replay_step=k, backward_steps=k)
    nodes, succ, pred = dict(graph._node), dict(graph._adj), dict(graph._pred)
    out._node, out._adj, out._pred = nodes, succ, pred
    order = _order_of(graph)
    done = bisect.bisect_left(order.indices, k)
    ran = set(order.executed[:done])
    waiting_nodes = order.executed[done:] + order.never  # the nodes that have not run
    for n in waiting_nodes:
        a = nodes[n]
        if a.get("executed"):
            nodes[n] = {**a, "executed": False, "executed_index": None}
    copied_succ, copied_pred = set(), set()
    # An edge's gradient was sent by its target (a node: the one that ran backward into it), or
    # by its source where the target is a tensor (a grad_fn's named output). Only the edges of
    # a sender that has not run lose theirs: at the end of a replay, few.
    node_pred = graph._pred
    waiting = [(u, v) for v in waiting_nodes + order.tensors for u in node_pred[v]]
    for u, v in waiting:
        edge = graph._adj[u][v]
        sender = v if nodes[v]["kind"] != "tensor" else u
        if sender in ran or edge["grad"] is None and not any(
                g is not None for g in edge["grads"]):
            continue
        new = {**edge, "grad": None, "grads": [None] * len(edge["grads"])}
        if u not in copied_succ:
            succ[u] = dict(succ[u])
            copied_succ.add(u)
        if v not in copied_pred:
            pred[v] = dict(pred[v])
            copied_pred.add(v)
        succ[u][v] = new
        pred[v][u] = new
    for node_id in order.tensors:
        attrs = graph._node[node_id]
        if attrs.get("grad") is None:
            continue
        # A leaf feeds only its accumulator; a named intermediate is fed only by its grad_fn.
        writers = graph._adj[node_id] if attrs["is_leaf"] else graph._pred[node_id]
        if not any(w in ran for w in writers):
            nodes[node_id] = {**nodes[node_id], "grad": None}
    nx._clear_cache(out)
    return out


def _step(graph: nx.DiGraph, index: int, node_id: str) -> ReplayStep:
    attrs = graph.nodes[node_id]
    node = ReplayNode(node_id, attrs["node_name"], attrs["kind"], attrs.get("group"))
    if attrs["kind"] == "accumulate":
        leaf = attrs.get("variable")
        grad = graph.edges[leaf, node_id]["grad"] if graph.has_edge(leaf, node_id) else None
        writes = [(leaf, grad)] if grad is not None else []
        return ReplayStep(index, node, [grad], [], writes, twin=True)
    return ReplayStep(index, node, _grads_in(graph, node_id), _grads_out(graph, node_id), [],
                      twin=attrs["node_name"] in engine_node_names())


def _grads_out(graph: nx.DiGraph, node_id: str) -> list:
    """One entry per ``next_functions`` slot: what the node sent there (None for no input)."""
    slots = graph.nodes[node_id].get("next_functions", [])
    out = [None] * len(slots)
    for source in graph.predecessors(node_id):
        edge = graph.edges[source, node_id]
        for slot, grad in zip(edge["slots"], edge["grads"]):
            if slot < len(out):
                out[slot] = grad
    return out


def _grads_in(graph: nx.DiGraph, node_id: str) -> list:
    """What arrived for each output: the gradient torch summed from the node's consumers.

    A named output's edge carries it directly (that is where the root's initial gradient is);
    otherwise the consumers' contributions are added in the order torch produced them, which is
    the order torch's input buffer added them in, so the sum has torch's bits.
    """
    direct: dict[int, object] = {}
    parts: dict[int, list] = {}
    for target in graph.successors(node_id):
        edge = graph.edges[node_id, target]
        t_attrs = graph.nodes[target]
        if t_attrs["kind"] == "tensor":
            if edge["grad"] is not None:
                direct[edge["output_nr"]] = edge["grad"]
            continue
        order = t_attrs.get("executed_index")
        if order is None:
            continue
        nexts = t_attrs.get("next_functions", [])
        for slot, grad in zip(edge["slots"], edge["grads"]):
            if grad is not None and slot < len(nexts) and nexts[slot] is not None:
                parts.setdefault(nexts[slot][1], []).append((order, slot, grad))
    n_outputs = graph.nodes[node_id].get("num_outputs") or 1 + max([*direct, *parts, 0])
    incomplete = graph.nodes[node_id].get("grads_incomplete", False)
    grads = []
    for nr in range(n_outputs):
        if nr in direct:
            grads.append(direct[nr])
        elif nr in parts and not incomplete:  # a sum missing a part would be a wrong number
            ordered = [g for _, _, g in sorted(parts[nr], key=lambda p: (p[0], p[1]))]
            total = ordered[0]
            for g in ordered[1:]:
                total = total + g
            grads.append(total)
        else:
            grads.append(None)
    return grads


@lru_cache(maxsize=1)
def engine_node_names() -> frozenset:
    """The PyTorch node names the engine's op table can make (its twins of torch's nodes)."""
    from ..ops.table import OPS

    return frozenset({op.node_name for op in OPS.values() if op.node_name} | {ACCUMULATE_NAME})
