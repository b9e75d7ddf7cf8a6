"""The drawn graph's items, made when first needed (issue 17).

A 100,000-node graph cannot have 225,000 QGraphicsItems made up front (tens of seconds): the
view keeps where every node and edge is in numpy arrays (``SceneIndex``) and makes the items of
what comes into sight (``LazyItems``). Zoomed far out nothing needs an item: the whole graph is
one recorded picture drawn from the arrays.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


class LazyItems(Mapping):
    """Item by id for every id drawn, made by ``make(id)`` on first read. ``in``, ``len`` and
    iteration see every id without making anything; ``made`` holds the items that exist."""

    def __init__(self, make) -> None:
        self._make = make
        self._ids: dict = {}
        self.made: dict = {}

    def reset(self, ids) -> None:
        self._ids = dict.fromkeys(ids)
        self.made = {}

    def clear(self) -> None:
        self.reset(())

    def __getitem__(self, key):
        item = self.made.get(key)
        if item is None:
            if key not in self._ids:
                raise KeyError(key)
            item = self.made[key] = self._make(key)
        return item

    def __contains__(self, key) -> bool:
        return key in self._ids

    def __iter__(self):
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


class SceneIndex:
    """Where the drawn nodes and edges are, as arrays: which ones meet a rectangle."""

    def __init__(self, node_ids: list, xy: np.ndarray, half: np.ndarray, edge_keys: list,
                 edge_ends: tuple, edge_boxes: np.ndarray) -> None:
        self.node_ids = node_ids
        self.xy = xy  # (n, 2) box centres
        self.half = half  # (n, 2) half widths and heights
        self.edge_keys = edge_keys
        self.edge_ends = edge_ends  # (sources, targets): node indices
        self.edge_boxes = edge_boxes  # (m, 4) left, top, right, bottom of each polyline

    @classmethod
    def build(cls, positions: dict, halves: dict, edges, bends: dict) -> SceneIndex:
        """``positions``/``halves``: id -> (x, y); ``edges``: (source, target) keys;
        ``bends``: key -> inner points of a long edge."""
        node_ids = list(positions)
        xy = np.array(list(positions.values()), dtype=np.float64).reshape(-1, 2)
        half = np.array([halves[n] for n in node_ids], dtype=np.float64).reshape(-1, 2)
        index = {n: i for i, n in enumerate(node_ids)}
        keys = list(edges)
        src = np.fromiter((index[u] for u, _ in keys), dtype=np.int64, count=len(keys))
        dst = np.fromiter((index[v] for _, v in keys), dtype=np.int64, count=len(keys))
        a, b = xy[src], xy[dst]
        boxes = np.concatenate([np.minimum(a, b), np.maximum(a, b)], axis=1).reshape(-1, 4)
        # Long edges' bends, all at once: each point widens its edge's box.
        owners, points = [], []
        for i, key in enumerate(keys):
            inner = bends.get(key)
            if inner:
                owners.extend([i] * len(inner))
                points.extend(inner)
        if points:
            owner = np.asarray(owners, dtype=np.int64)
            pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
            for column, reduce, axis in ((0, np.minimum, 0), (1, np.minimum, 1),
                                         (2, np.maximum, 0), (3, np.maximum, 1)):
                reduce.at(boxes[:, column], owner, pts[:, axis])
        return cls(node_ids, xy, half, keys, (src, dst), boxes)

    def nodes_in(self, left: float, top: float, right: float, bottom: float) -> list:
        """The ids of the nodes whose boxes meet the rectangle."""
        x, y = self.xy[:, 0], self.xy[:, 1]
        hw, hh = self.half[:, 0], self.half[:, 1]
        hit = (x + hw >= left) & (x - hw <= right) & (y + hh >= top) & (y - hh <= bottom)
        return [self.node_ids[i] for i in np.flatnonzero(hit)]

    def node_boxes_in(self, left, top, right, bottom) -> list[tuple]:
        """The boxes (left, top, right, bottom) of the nodes that meet the rectangle."""
        x, y = self.xy[:, 0], self.xy[:, 1]
        hw, hh = self.half[:, 0], self.half[:, 1]
        hit = np.flatnonzero((x + hw >= left) & (x - hw <= right) & (y + hh >= top)
                             & (y - hh <= bottom))
        boxes = np.stack([x[hit] - hw[hit], y[hit] - hh[hit], x[hit] + hw[hit],
                          y[hit] + hh[hit]], axis=1)
        return [tuple(b) for b in boxes.tolist()]

    def edges_in(self, left: float, top: float, right: float, bottom: float) -> list:
        """The keys of the edges whose polylines' bounding boxes meet the rectangle."""
        b = self.edge_boxes
        hit = (b[:, 2] >= left) & (b[:, 0] <= right) & (b[:, 3] >= top) & (b[:, 1] <= bottom)
        return [self.edge_keys[i] for i in np.flatnonzero(hit)]
