"""Crossing reduction: reorder nodes within layers, never accepting a worse order.

Starting from creation order (a good start for autograd graphs), rounds alternate between the even
and the odd layers. While one parity moves, its neighbours stay put, so each moving layer's effect
on the crossings (with the layer above and the one below) is known exactly and independently: a
layer takes its new barycenter or median order only if that does not add crossings. The total
therefore never goes up, and every round is a handful of numpy calls over the whole graph instead
of a Python loop over layers. The amount of work is bounded by a segment budget rather than a
clock, so the result is deterministic.
"""

from __future__ import annotations

import numpy as np

from .crossings import count_crossings

WORK_BUDGET = 1_500_000
"""Segment visits allowed for crossing reduction: enough rounds for small graphs to settle,
a bounded number of rounds for huge ones."""

MAX_ROUNDS = 24
PATIENCE = 4
"""Rounds without fewer crossings after which reduction stops."""

# (heuristic, which neighbours) per pair of rounds; each entry runs once for each parity.
_SCHEDULE = (("barycenter", "up"), ("barycenter", "down"), ("median", "both"),
             ("barycenter", "both"), ("median", "up"), ("median", "down"))


class Ordering:
    """Positions within layers for a proper layered graph, and their crossing counts.

    Parameters
    ----------
    layer : ndarray
        Layer of each node.
    seg_src, seg_dst : ndarray
        Segments from layer ``l`` to ``l + 1``.
    start_key : ndarray
        The starting order within each layer (creation order).
    """

    def __init__(self, layer, seg_src, seg_dst, start_key) -> None:
        self.layer = layer
        self.upper = seg_src
        self.lower = seg_dst
        self.group = layer[seg_src] if len(seg_src) else np.zeros(0, dtype=np.int64)
        self.n_layers = int(layer.max()) + 1 if len(layer) else 0
        self.width = np.bincount(layer, minlength=self.n_layers)
        # seq: all nodes, layer by layer, left to right. Reordering only permutes within the
        # blocks of seq that hold one layer, so the rank at each slot of seq never changes.
        self.seq = np.lexsort((np.arange(len(layer)), start_key, layer))
        self.seq_layer = layer[self.seq]
        first = np.searchsorted(self.seq_layer, self.seq_layer, "left")
        self.slot_rank = np.arange(len(layer)) - first
        self.pos = np.empty(len(layer), dtype=np.int64)
        self.pos[self.seq] = self.slot_rank
        self._pairs: dict = {}
        self.pair_crossings = self._count(self.pos, np.ones(self.n_layers, dtype=bool))
        self.initial_crossings = int(self.pair_crossings.sum())

    @property
    def crossings(self) -> int:
        return int(self.pair_crossings.sum())

    def _count(self, pos, groups: np.ndarray) -> np.ndarray:
        """Crossings of the layer pairs selected by ``groups`` (a mask over upper layers)."""
        take = groups[self.group]
        counted = count_crossings(self.group[take], pos[self.upper[take]],
                                  pos[self.lower[take]], self.n_layers)
        return counted

    def reduce(self, work_budget: int = WORK_BUDGET) -> None:
        """Run rounds of the schedule until the crossings stop falling or the budget is spent."""
        if self.n_layers < 2 or len(self.upper) == 0:
            return
        rounds = min(MAX_ROUNDS, max(2, work_budget // max(1, 4 * len(self.upper))))
        best = self.crossings
        stale = 0
        for r in range(rounds):
            heuristic, side = _SCHEDULE[(r // 2) % len(_SCHEDULE)]
            self._round(r % 2, heuristic, side)
            now = self.crossings
            if now < best:
                best, stale = now, 0
            else:
                stale += 1
                if stale >= PATIENCE or now == 0:
                    break

    def gather(self, cluster: np.ndarray) -> None:
        """Bring nodes of one cluster (a module group; -1 for none) together in every layer,
        where that adds no crossing: each moves to its cluster's mean place in the layer.

        All layers at once first (a group spans layers: moving one layer alone would cross its
        edges to the next), kept if the total does not grow; then layer by layer.
        """
        if not (cluster >= 0).any():
            return
        npos = (self.pos + 0.5) / self.width[self.layer]
        key = _cluster_key(npos, self.layer, cluster, (cluster >= 0))
        seq = self.seq[np.argsort(self.seq_layer * 2.0 + key[self.seq], kind="stable")]
        candidate = np.empty_like(self.pos)
        candidate[seq] = self.slot_rank
        counted = self._count(candidate, np.ones(self.n_layers, dtype=bool))
        if counted.sum() <= self.pair_crossings.sum():
            self.seq, self.pos, self.pair_crossings = seq, candidate, counted
        for parity in (0, 1):
            self._round(parity, "cluster", "", cluster)

    def _round(self, parity: int, heuristic: str, side: str, cluster=None) -> None:
        layer, pos = self.layer, self.pos
        npos = (pos + 0.5) / self.width[layer]  # in (0, 1): layers of any width compare
        if cluster is None:
            key = self._neighbour_key(npos, parity, heuristic, side)
        else:
            key = _cluster_key(npos, layer, cluster, (cluster >= 0) & (layer % 2 == parity))
        # A stable sort of the current order: ties keep their places.
        cand_seq = self.seq[np.argsort(self.seq_layer * 2.0 + key[self.seq], kind="stable")]
        moved = cand_seq != self.seq
        if not moved.any():
            return
        candidate = pos.copy()
        candidate[cand_seq] = self.slot_rank
        changed = np.zeros(self.n_layers, dtype=bool)
        changed[self.seq_layer[moved]] = True

        pairs = changed.copy()  # pair l joins layers l and l + 1
        pairs[:-1] |= changed[1:]
        new = self._count(candidate, pairs)
        old = self.pair_crossings
        # Each moving layer touches pair l - 1 (above) and pair l (below); both neighbours fixed.
        above_new = np.concatenate([[0], new[:-1]])
        above_old = np.concatenate([[0], old[:-1]])
        delta = (new + above_new) - (old + above_old)
        accept = changed & (delta <= 0)
        if not accept.any():
            return
        self.seq = np.where(accept[self.seq_layer], cand_seq, self.seq)
        self.pos = np.where(accept[layer], candidate, pos)
        take = accept.copy()
        take[:-1] |= accept[1:]
        self.pair_crossings = np.where(take, new, old)

    def _neighbours(self, parity: int, side: str):
        """(node, neighbour) pairs for the nodes of one parity, looking up, down or both ways."""
        cached = self._pairs.get((parity, side))
        if cached is None:
            nodes, others = [], []
            if side in ("up", "both"):
                nodes.append(self.lower)
                others.append(self.upper)
            if side in ("down", "both"):
                nodes.append(self.upper)
                others.append(self.lower)
            node = np.concatenate(nodes)
            other = np.concatenate(others)
            keep = (self.layer[node] % 2) == parity
            node, other = node[keep], other[keep]
            degree = np.bincount(node, minlength=len(self.layer))
            cached = self._pairs[(parity, side)] = (node, other, degree)
        return cached

    def _neighbour_key(self, npos, parity: int, heuristic: str, side: str) -> np.ndarray:
        """Sort key per node: its neighbours' barycenter or median, its own place if none."""
        node, other, degree = self._neighbours(parity, side)
        value = npos[other]
        n = len(npos)
        key = npos.copy()
        has = degree > 0
        if heuristic == "barycenter":
            key[has] = np.bincount(node, weights=value, minlength=n)[has] / degree[has]
        else:
            value = np.sort(node * 2.0 + value) - np.sort(node) * 2.0  # sorted within each node
            start = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(degree, out=start[1:])
            d = degree[has]
            s = start[:-1][has]
            key[has] = 0.5 * (value[s + (d - 1) // 2] + value[s + d // 2])
        return key


def _cluster_key(npos, layer, cluster, member) -> np.ndarray:
    """Each ``member`` node (a mask) at the mean place of its cluster's nodes in its layer."""
    key = npos.copy()
    if not member.any():
        return key
    n_clusters = int(cluster.max()) + 1
    cell = layer[member] * n_clusters + cluster[member]  # one cell per (layer, cluster)
    cells, index = np.unique(cell, return_inverse=True)
    mean = np.bincount(index, weights=npos[member]) / np.bincount(index)
    key[member] = mean[index]
    return key
