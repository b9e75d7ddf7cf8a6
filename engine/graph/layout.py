"""The layered layout of a graph, in the manner of Graphviz's ``dot``.

Four stages, each in its own module: layers by dependency (:mod:`.layering`), dummy nodes so long
edges run straight through every layer they cross, crossing reduction starting from creation order
and never accepting a worse order (:mod:`.ordering`), and x coordinates (:mod:`.coordinates`).
Coordinates are scene units with y growing downwards: inputs at the top, the loss at the bottom.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from .collector import collector_paused
from .coordinates import assign_x
from .layering import ProperGraph, assign_layers, make_proper
from .ordering import Ordering

NODE_WIDTH = 120.0
NODE_HEIGHT = 40.0
LAYER_SPACING = 80.0
"""Distance between the centres of two consecutive layers."""
NODE_GAP = 30.0
"""Least horizontal space between two boxes of one layer."""
DUMMY_WIDTH = 10.0
"""Width reserved for a long edge passing through a layer."""


@dataclass
class Layout:
    """Where everything goes.

    Attributes
    ----------
    positions : dict
        Node id -> (x, y) of its box's centre.
    layers : list of list
        Node ids per layer, top to bottom, each left to right.
    order : dict
        Node id -> (layer, index within the layer's ``layers`` list).
    crossings : int
        Edge crossings of the drawing (long edges counted through their dummy nodes).
    initial_crossings : int
        Crossings of creation order, where crossing reduction started.
    edges : dict
        (source, target) -> polyline [(x, y), ...] from the source's centre to the target's,
        through the points where a long edge crosses intermediate layers.
    groups : dict
        Module group -> (x0, y0, x1, y1), the box around its nodes (enclosing groups included:
        a node of ``model.fc1`` also counts for ``model``).
    size : tuple
        (width, height) of the whole drawing.
    """

    positions: dict
    layers: list
    order: dict
    crossings: int
    initial_crossings: int
    edges: dict
    groups: dict
    size: tuple
    node_size: tuple = (NODE_WIDTH, NODE_HEIGHT)
    signature: tuple = field(default=(), repr=False, compare=False)


def structure_signature(graph: nx.DiGraph) -> tuple:
    """What the layout depends on: the node ids in order, and the edges."""
    return tuple(graph.nodes), frozenset(graph.edges)


def layout(graph: nx.DiGraph, previous: Layout | None = None) -> Layout:
    """Lay ``graph`` out in layers.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes in creation order (as :func:`build_graph` adds them); optional node attribute
        ``group``. Edges point from inputs to outputs.
    previous : Layout, optional
        The layout of the graph's last version. When the structure (node ids, their order, the
        edges) is unchanged -- only values and grads differ, as at each training iteration -- it
        is returned as it is, so nothing on screen moves.

    Returns
    -------
    Layout
        Deterministic: the same graph always gives the same layout.
    """
    signature = structure_signature(graph)
    if previous is not None and previous.signature == signature:
        return previous
    with collector_paused():
        return _layout(graph, signature, previous)


def _layout(graph: nx.DiGraph, signature: tuple, previous: Layout | None) -> Layout:
    ids = list(graph.nodes)
    index = {node_id: i for i, node_id in enumerate(ids)}
    edge_list = [(u, v) for u, nbrs in graph.adjacency() for v in nbrs if u != v]
    src = np.fromiter((index[u] for u, _ in edge_list), dtype=np.int64, count=len(edge_list))
    dst = np.fromiter((index[v] for _, v in edge_list), dtype=np.int64, count=len(edge_list))
    n = len(ids)

    layer, reversed_edges = assign_layers(n, src, dst)
    proper = make_proper(n, layer, src, dst, reversed_edges)
    ordering = _order(proper, ids, edge_list, previous)

    box_width = np.full(proper.n, DUMMY_WIDTH)
    box_width[:n] = NODE_WIDTH
    x = assign_x(proper.layer, ordering.pos, proper.seg_src, proper.seg_dst, proper.chain,
                 box_width, NODE_GAP)
    if proper.n:
        x = x - (x[:n].min() - NODE_WIDTH / 2 if n else 0.0)
    y = proper.layer * LAYER_SPACING + NODE_HEIGHT / 2

    positions = dict(zip(ids, zip(x[:n].tolist(), y[:n].tolist())))
    layers, order = _layers(ids, layer, ordering.pos[:n])
    return Layout(
        positions=positions,
        layers=layers,
        order=order,
        crossings=ordering.crossings,
        initial_crossings=ordering.creation_crossings,
        edges=_polylines(edge_list, reversed_edges, proper, x, y),
        groups=_group_boxes(graph, positions),
        size=_size(x[:n], y[:n]),
        signature=signature,
    )


def _order(proper: ProperGraph, ids: list, edge_list: list, previous: Layout | None) -> Ordering:
    """Crossing reduction from creation order, or from the previous picture when there is one.

    Starting from the previous layout, and reordering only the layers that gained a node or an
    edge, keeps what the user saw in place while the graph grows statement by statement. Should
    that end with more crossings than creation order had, the reduction also runs from creation
    order and the better result wins.
    """
    n = proper.n_real
    creation = Ordering(proper.layer, proper.seg_src, proper.seg_dst,
                        _start_key(proper, np.arange(n, dtype=np.float64)))
    creation.creation_crossings = creation.initial_crossings
    if previous is None or not previous.positions:
        creation.reduce()
        return creation
    kept = Ordering(proper.layer, proper.seg_src, proper.seg_dst,
                    _start_key(proper, _previous_key(ids, proper, previous)))
    kept.creation_crossings = creation.initial_crossings
    kept.reduce(movable=_touched_layers(proper, ids, edge_list, previous))
    if kept.crossings <= creation.initial_crossings:
        return kept
    creation.reduce()
    return kept if kept.crossings <= creation.crossings else creation


def _touched_layers(proper: ProperGraph, ids: list, edge_list: list, previous: Layout) -> np.ndarray:
    """Layers holding a node that is new or changed layer, or a part of a new edge."""
    n = proper.n_real
    touched = np.zeros(int(proper.layer.max()) + 1 if proper.n else 0, dtype=bool)
    old = previous.order
    layer = proper.layer
    real = layer[:n].tolist()
    touched[[li for node_id, li in zip(ids, real)
             if node_id not in old or old[node_id][0] != li]] = True
    new_edges = np.array([edge not in previous.edges for edge in edge_list], dtype=bool)
    if new_edges.any():
        touched[layer[proper.upper[new_edges]]] = True
        touched[layer[proper.lower[new_edges]]] = True
        dummies = proper.chain[n:]
        touched[layer[n:][new_edges[dummies]]] = True
    return touched


def _previous_key(ids: list, proper: ProperGraph, previous: Layout) -> np.ndarray:
    """Each node's x in the previous layout; a new node takes its known neighbours' mean x, or
    goes to the right if it has none (ties keep creation order)."""
    n = proper.n_real
    old = previous.positions
    key = np.array([old[i][0] if i in old else np.nan for i in ids], dtype=np.float64)
    new = np.isnan(key)
    if new.any():
        ends = np.concatenate([proper.upper, proper.lower])
        others = np.concatenate([proper.lower, proper.upper])
        known = ~new[others]
        total = np.bincount(ends[known], weights=key[others[known]], minlength=n)
        count = np.bincount(ends[known], minlength=n)
        right = (np.nanmax(key) if (~new).any() else 0.0) + NODE_WIDTH
        key[new] = np.where(count[new] > 0, total[new] / np.maximum(count[new], 1), right)
    return key


def _start_key(proper: ProperGraph, real_key: np.ndarray) -> np.ndarray:
    """``real_key`` for real nodes; a dummy sits between its edge's ends' keys."""
    n = proper.n_real
    key = np.empty(proper.n)
    key[:n] = real_key
    if proper.n > n:
        chain = proper.chain[n:]
        upper, lower = proper.upper[chain], proper.lower[chain]
        top = proper.layer[upper]
        t = (proper.layer[n:] - top) / (proper.layer[lower] - top)
        key[n:] = real_key[upper] + (real_key[lower] - real_key[upper]) * t
    return key


def _layers(ids, layer, pos):
    ranked = np.lexsort((pos, layer))
    ranked_ids = [ids[i] for i in ranked.tolist()]
    ranked_layer = layer[ranked]
    bounds = np.searchsorted(ranked_layer, np.arange(int(layer.max()) + 2 if len(layer) else 0))
    rows = [ranked_ids[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]
    index_in_layer = np.arange(len(ranked)) - bounds[ranked_layer]
    order = dict(zip(ranked_ids, zip(ranked_layer.tolist(), index_in_layer.tolist())))
    return rows, order


def _polylines(edge_list, reversed_edges, proper: ProperGraph, x, y) -> dict:
    points = list(zip(x.tolist(), y.tolist()))
    upper, lower = proper.upper.tolist(), proper.lower.tolist()
    starts = proper.path_start.tolist()
    n = proper.n_real
    lines = {}
    for e, edge in enumerate(edge_list):
        first, last = starts[e], starts[e + 1]
        if first == last:
            line = [points[upper[e]], points[lower[e]]]
        else:
            line = [points[upper[e]], *points[n + first : n + last], points[lower[e]]]
        lines[edge] = line
    for e in np.flatnonzero(reversed_edges).tolist():
        lines[edge_list[e]].reverse()
    return lines


def _group_boxes(graph: nx.DiGraph, positions: dict) -> dict:
    boxes: dict[str, list] = {}
    half_w, half_h = NODE_WIDTH / 2, NODE_HEIGHT / 2
    for node_id, group in graph.nodes(data="group"):
        if not group:
            continue
        x, y = positions[node_id]
        for name in _enclosing(group):
            box = boxes.get(name)
            if box is None:
                boxes[name] = [x - half_w, y - half_h, x + half_w, y + half_h]
            else:
                box[0] = min(box[0], x - half_w)
                box[1] = min(box[1], y - half_h)
                box[2] = max(box[2], x + half_w)
                box[3] = max(box[3], y + half_h)
    return {name: tuple(box) for name, box in sorted(boxes.items())}


def _enclosing(group: str) -> list[str]:
    """``model.fc1`` -> ``model``, ``model.fc1``."""
    parts = group.split(".")
    return [".".join(parts[: k + 1]) for k in range(len(parts))]


def _size(x, y) -> tuple:
    if len(x) == 0:
        return (0.0, 0.0)
    return (float(x.max() - x.min() + NODE_WIDTH), float(y.max() + NODE_HEIGHT / 2))
