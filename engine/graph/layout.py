"""The layered layout of a graph, in the manner of Graphviz's ``dot``.

Four stages, each in its own module: layers by dependency (:mod:`.layering`), dummy nodes so long
edges run straight through every layer they cross, crossing reduction starting from creation order
and never accepting a worse order (:mod:`.ordering`), and x coordinates (:mod:`.coordinates`).
Coordinates are scene units with y growing downwards: inputs at the top, the loss at the bottom.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ..gc_policy import collector_paused
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
    bands : int
        1, or the number of bands :func:`engine.graph.wrap.wrap_layout` cut the layers into.
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
    bands: int = 1
    """How many side-by-side bands the layers are wrapped into (:func:`.wrap.wrap_layout`)."""
    signature: tuple = field(default=(), repr=False, compare=False)


STRUCTURE = "structure"
"""``graph.graph[STRUCTURE]``, where set, stands for the graph's edges: graphs with the same node
ids in order and the same token have the same edges. A replay sets one per recording (every
step's graph has the recording's structure); folding drops it. The edge set itself is 100,000
tuples to make and compare at every step of a 100,000-node replay."""


def structure_signature(graph: nx.DiGraph) -> tuple:
    """What the layout depends on: the node ids in order, and the edges (or the token that
    stands for them, ``STRUCTURE``)."""
    token = graph.graph.get(STRUCTURE)
    return tuple(graph.nodes), frozenset(graph.edges) if token is None else token


def layout(graph: nx.DiGraph, previous: Layout | None = None, *,
           drawn_folded: bool = False) -> Layout:
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
    drawn_folded : bool
        The caller knows the graph will be drawn folded (the window folds repeated runs): a
        graph of more than ``LAZY_NODES`` nodes then gets a lazy layout, as a grouped one does.

    Returns
    -------
    Layout
        Deterministic: the same graph always gives the same layout.
    """
    with collector_paused():
        signature = structure_signature(graph)
        if previous is not None and previous.signature == signature:
            return previous
        inputs = _Inputs(graph, signature)
        if len(inputs.ids) > LAZY_NODES and (drawn_folded or any(inputs.groups)):
            return _LazyLayout(inputs)
        return _layout(inputs)


LAZY_NODES = 2000
"""A graph with module groups (or one drawn folded, ``drawn_folded``) and more nodes than this
gets a layout computed when first read: the window draws such a graph with its groups or its
repeated runs folded (the folded graph's own layout) and unfolds them on demand, so the whole
graph's layout, seconds for 100,000 nodes and 0.1 s for 10,000, is often never needed."""


class _Inputs:
    """What a layout reads from a graph, taken when ``layout()`` is called (the graph may
    change after): ids in order, edges (without self-loops) and each node's group."""

    def __init__(self, graph: nx.DiGraph, signature: tuple) -> None:
        self.signature = signature
        self.ids = signature[0]
        self.edges = [(u, v) for u, nbrs in graph.adjacency() for v in nbrs if u != v]
        self.groups = [group for _, group in graph.nodes(data="group")]


class _LazyLayout(Layout):
    """A Layout whose fields are computed on first access (see ``LAZY_NODES``)."""

    def __init__(self, inputs: _Inputs | None = None, **fields) -> None:
        if inputs is None:  # dataclasses.replace() builds a copy from every field, read
            Layout.__init__(self, **fields)
            return
        self._inputs = inputs
        self.signature = inputs.signature

    def __getattr__(self, name: str):
        # only called for attributes not set yet: the layout's fields
        if name.startswith("__") or name == "_inputs":
            raise AttributeError(name)
        with _LAZY_LOCK:  # made once, whichever thread reads first (the others wait)
            inputs = self.__dict__.pop("_inputs", None)
            if inputs is not None:
                with collector_paused():
                    self.__dict__.update(_layout(inputs).__dict__)
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None


_LAZY_LOCK = threading.RLock()


def _layout(inputs: _Inputs) -> Layout:
    ids, edge_list = list(inputs.ids), inputs.edges
    index = {node_id: i for i, node_id in enumerate(ids)}
    src = np.fromiter((index[u] for u, _ in edge_list), dtype=np.int64, count=len(edge_list))
    dst = np.fromiter((index[v] for _, v in edge_list), dtype=np.int64, count=len(edge_list))
    n = len(ids)

    depth_list: list = []
    layer, reversed_edges = assign_layers(n, src, dst, depth_list)
    proper = make_proper(n, layer, src, dst, reversed_edges)
    depth = _depths(proper, np.asarray(depth_list, dtype=np.int64))
    # Creation order is the start: it is already good for autograd graphs, and a graph growing
    # statement by statement keeps its old nodes' order, so the picture stays put. (Starting
    # from the previous picture instead was tried: it kept more crossings and moved more x.)
    ordering = Ordering(proper.layer, proper.seg_src, proper.seg_dst,
                        _start_key(proper, np.arange(n, dtype=np.float64)))
    ordering.reduce()
    ordering.gather(_clusters(inputs.groups, proper.n))

    box_width = np.full(proper.n, DUMMY_WIDTH)
    box_width[:n] = NODE_WIDTH
    x = assign_x(proper.layer, ordering.pos, proper.seg_src, proper.seg_dst, proper.chain,
                 box_width, NODE_GAP, depth=depth)
    if proper.n:
        x = x - (x - box_width / 2).min()  # the drawing starts at x = 0
    y = proper.layer * LAYER_SPACING + NODE_HEIGHT / 2

    positions = dict(zip(ids, zip(x[:n].tolist(), y[:n].tolist())))
    layers, order = _layers(ids, layer, ordering.pos[:n])
    return Layout(
        positions=positions,
        layers=layers,
        order=order,
        crossings=ordering.crossings,
        initial_crossings=ordering.initial_crossings,
        edges=_polylines(edge_list, reversed_edges, proper, x, y),
        groups=_boxes(ids, inputs.groups, x[:n], y[:n]),
        size=_size(x, y, box_width),
        signature=inputs.signature,
    )


def _depths(proper: ProperGraph, real_depth: np.ndarray) -> np.ndarray:
    """Depth (longest path from a source) of every node; a dummy counts from its edge's top."""
    n = proper.n_real
    depth = np.empty(proper.n, dtype=np.int64)
    depth[:n] = real_depth
    if proper.n > n:
        upper = proper.upper[proper.chain[n:]]
        depth[n:] = real_depth[upper] + proper.layer[n:] - proper.layer[upper]
    return depth


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


def _clusters(groups: list, n_total: int) -> np.ndarray:
    """A cluster number per node (dummies included) from its module group; -1 for none."""
    numbers: dict = {}
    cluster = np.full(n_total, -1, dtype=np.int64)
    for i, group in enumerate(groups):
        if group:
            cluster[i] = numbers.setdefault(group, len(numbers))
    return cluster


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


def _boxes(ids: list, groups: list, x: np.ndarray, y: np.ndarray) -> dict:
    """Each group's box around its nodes' boxes, a group counting its subgroups' nodes; with
    numpy per group name, not a Python step per node and enclosing group."""
    members: dict[str, list] = {}
    for i, group in enumerate(groups):
        if group:
            members.setdefault(group, []).append(i)
    rows: dict[str, list] = {}
    for group, found in members.items():
        for name in _enclosing(group):
            rows.setdefault(name, []).append(found)
    half_w, half_h = NODE_WIDTH / 2, NODE_HEIGHT / 2
    boxes = {}
    for name in sorted(rows):
        at = np.concatenate(rows[name]) if len(rows[name]) > 1 else np.asarray(rows[name][0])
        gx, gy = x[at], y[at]
        boxes[name] = (float(gx.min() - half_w), float(gy.min() - half_h),
                       float(gx.max() + half_w), float(gy.max() + half_h))
    return boxes


def _enclosing(group: str) -> list[str]:
    """``model.fc1`` -> ``model``, ``model.fc1``."""
    parts = group.split(".")
    return [".".join(parts[: k + 1]) for k in range(len(parts))]


def _size(x, y, box_width) -> tuple:
    """Width and height of the drawing, which starts at (0, 0)."""
    if len(x) == 0:
        return (0.0, 0.0)
    return (float((x + box_width / 2).max()), float(y.max() + NODE_HEIGHT / 2))
