"""Layers by dependency, and dummy nodes that make every edge span exactly one layer.

Layers are assigned as soon as possible (by the longest path from a source), then nodes that feed
more edges than they read are moved down next to their consumers. That is what Graphviz's network
simplex mostly achieves on autograd graphs: a parameter and its ``AccumulateGrad`` sit just above
the op that uses them instead of at the very top with a long edge down, a named intermediate
(``t2``) sits right under the op that made it, and a dead-end branch stays where it branched off.
Edges run downwards: inputs at the top, the loss at the bottom.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np


def topological_order(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """A topological order of nodes ``0..n-1`` (Kahn's, ties by index; cycles broken by index).

    Autograd graphs are acyclic; a cyclic input still gets an order, in which the edges that
    close a cycle point backwards (:func:`assign_layers` draws them reversed).
    """
    indeg = np.bincount(dst, minlength=n).tolist()
    out = _adjacency(n, src, dst)
    queue = deque(i for i in range(n) if indeg[i] == 0)
    order: list[int] = []
    done = [False] * n
    next_unforced = 0
    while len(order) < n:
        if not queue:  # a cycle: start it at its smallest remaining node
            while done[next_unforced]:
                next_unforced += 1
            queue.append(next_unforced)
            indeg[next_unforced] = 0
        v = queue.popleft()
        if done[v]:
            continue
        done[v] = True
        order.append(v)
        for w in out[v]:
            indeg[w] -= 1
            if indeg[w] == 0 and not done[w]:
                queue.append(w)
    return np.asarray(order, dtype=np.int64)


def assign_layers(n: int, src: np.ndarray, dst: np.ndarray,
                  depth_out: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The layer of every node, and which edges had to be reversed to break cycles.

    ``depth_out``, a list, receives every node's depth: the longest path to it from a source
    (its layer before nodes move down to their consumers). The main path of a model is deep;
    a parameter's ``AccumulateGrad`` and ``TBackward0`` are not.

    Returns
    -------
    layer : ndarray of int64
        ``layer[v]``; every (unreversed) edge goes from a smaller to a larger layer.
    reversed_edges : ndarray of bool
        One per edge; all False for a DAG.
    """
    order = topological_order(n, src, dst)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    reversed_edges = rank[src] > rank[dst]
    down_src = np.where(reversed_edges, dst, src)
    down_dst = np.where(reversed_edges, src, dst)
    out = _adjacency(n, down_src, down_dst)
    inputs = _adjacency(n, down_dst, down_src)
    layer = [0] * n
    for v in order.tolist():  # as soon as possible: one below the lowest input
        for u in inputs[v]:
            if layer[u] >= layer[v]:
                layer[v] = layer[u] + 1
    if depth_out is not None:
        depth_out.extend(layer)
    # Then, from the bottom up, a node that feeds at least as many edges as it reads moves down
    # to just above its first consumer: that shortens (or keeps) the total edge length. This is
    # what puts a leaf and its AccumulateGrad right above the op that uses them.
    for v in order[::-1].tolist():
        consumers = out[v]
        if consumers and len(consumers) >= len(inputs[v]):
            below = min(layer[w] for w in consumers) - 1
            if below > layer[v]:
                layer[v] = below
    return np.asarray(layer, dtype=np.int64), reversed_edges


def _adjacency(n: int, src: np.ndarray, dst: np.ndarray) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n)]
    for s, d in zip(src.tolist(), dst.tolist()):
        out[s].append(d)
    return out


@dataclass
class ProperGraph:
    """A layered graph whose edges all span one layer: real nodes ``0..n_real-1``, then dummies.

    Attributes
    ----------
    layer : ndarray
        Layer of every node, dummies included.
    seg_src, seg_dst : ndarray
        The one-layer segments, ``layer[seg_dst] == layer[seg_src] + 1``.
    chain : ndarray
        For a dummy, the index of the original edge it belongs to; -1 for real nodes.
    path_start : ndarray
        Original edge ``e`` runs through the dummies ``path_start[e] .. path_start[e+1]-1``
        (in order from top to bottom), between its two real end nodes.
    upper, lower : ndarray
        Each original edge's end nodes, upper first (reversed edges are swapped back).
    """

    n_real: int
    layer: np.ndarray
    seg_src: np.ndarray
    seg_dst: np.ndarray
    chain: np.ndarray
    path_start: np.ndarray
    upper: np.ndarray
    lower: np.ndarray

    @property
    def n(self) -> int:
        return len(self.layer)


def make_proper(n: int, layer: np.ndarray, src: np.ndarray, dst: np.ndarray,
                reversed_edges: np.ndarray) -> ProperGraph:
    """Split every edge longer than one layer into a chain of dummy nodes (vectorised)."""
    upper = np.where(reversed_edges, dst, src).astype(np.int64)
    lower = np.where(reversed_edges, src, dst).astype(np.int64)
    span = layer[lower] - layer[upper]
    n_dummies = np.maximum(span - 1, 0)
    path_start = np.zeros(len(span) + 1, dtype=np.int64)
    np.cumsum(n_dummies, out=path_start[1:])
    total = int(path_start[-1])
    chain = np.repeat(np.arange(len(span)), n_dummies)
    step = np.arange(total) - path_start[:-1][chain] + 1  # 1 .. span-1 along each edge
    dummy_ids = n + np.arange(total)
    dummy_layer = layer[upper][chain] + step
    # Segments: into each dummy from the one above (or the upper end), and edge's final hop.
    first = step == 1
    into_dummy_src = np.where(first, upper[chain], dummy_ids - 1)
    last_node = np.where(n_dummies > 0, n + path_start[1:] - 1, upper)
    seg_src = np.concatenate([into_dummy_src, last_node])
    seg_dst = np.concatenate([dummy_ids, lower])
    return ProperGraph(
        n_real=n,
        layer=np.concatenate([layer.astype(np.int64), dummy_layer]),
        seg_src=seg_src,
        seg_dst=seg_dst,
        chain=np.concatenate([np.full(n, -1, dtype=np.int64), chain]),
        path_start=path_start,
        upper=upper,
        lower=lower,
    )
