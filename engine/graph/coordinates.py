"""x coordinates for ordered layers: nodes centred on their neighbours, aligned chains straight.

First, vertical alignment as in Brandes and Koepf: each node joins the block of its median upper
neighbour when that link crosses no other kept link, so a long edge's dummies and every chain of
single links form one block. Then a few rounds, vectorised over the whole graph: every block moves
to the weighted mean x of its members' neighbours (segments between dummies weigh most, as in
Graphviz's ``dot``), then each layer is made feasible again: with ``y = x - S``, ``S`` the offsets
of the layer packed to the left, a placement keeps order and spacing iff ``y`` is non-decreasing;
the mean of the running maximum from the left and the running minimum from the right is such a
placement, close to the wish. In the last rounds longer blocks are placed first and shorter ones
fit into the gaps they leave, so where two want the same place the shorter one gives way. A
block can still bend where a layer is crowded; a last pass straightens every block for which
some x fits all its members between their neighbours.

(Placing whole blocks under the spacing constraints keeps every block straight but, pushed from
both sides, spread the drawing several times wider; working per layer keeps it compact.)
"""

from __future__ import annotations

from collections import deque

import numpy as np

ROUNDS = 10
TIERED_ROUNDS = 2
STRAIGHTEN_ROUNDS = 2
TIER_SIZES = np.array([2, 3])
"""Blocks of at least 2 and 3 nodes take precedence, in that order, over smaller ones; blocks that
carry a long edge over all."""

# Segment weights by the kinds of their ends (Graphviz's omega: 1, 2, 8).
_WEIGHT_REAL = 1.0
_WEIGHT_MIXED = 2.0
_WEIGHT_DUMMY = 8.0


def assign_x(layer, pos, seg_src, seg_dst, chain, box_width, gap, rounds: int = ROUNDS,
             depth=None):
    """x of every node's centre.

    Parameters
    ----------
    layer, pos : ndarray
        Each node's layer and index within it.
    seg_src, seg_dst : ndarray
        One-layer segments.
    chain : ndarray
        For dummies, the id of the long edge they belong to; -1 for real nodes.
    box_width : ndarray
        Width of each node's box (dummies are thin).
    gap : float
        Least horizontal space between two boxes.
    depth : ndarray, optional
        Each node's longest path from a source: a node aligns with its deepest upper
        neighbour (the main path), not with a parameter's short branch.
    """
    n = len(layer)
    if n == 0:
        return np.zeros(0)
    seq = np.lexsort((pos, layer))  # nodes left to right, layer by layer
    lay = layer[seq]
    w = box_width[seq]
    same_layer = np.zeros(n, dtype=bool)
    same_layer[1:] = lay[1:] == lay[:-1]
    step = np.where(same_layer, (np.roll(w, 1) + w) / 2 + gap, 0.0)
    packed = _segmented_cumsum(step, same_layer)  # offsets of a left-packed layer
    layer_extent = _per_layer_last(packed, lay)
    x = np.empty(n)
    x[seq] = packed - layer_extent[lay] / 2  # every layer centred on 0 to begin with

    block = align_blocks(n, pos, seg_src, seg_dst, layer, inner=chain >= 0, depth=depth)
    in_block = np.bincount(block, minlength=n)
    # Tiers: single nodes, blocks of 2, of 3 or more, and (first placed) long edges' blocks.
    has_dummy = np.zeros(n, dtype=bool)
    has_dummy[block[chain >= 0]] = True
    tier = np.searchsorted(TIER_SIZES, in_block[block], side="right")
    tier[has_dummy[block]] = len(TIER_SIZES) + 1
    tier_seq = tier[seq]
    chosen = np.flatnonzero(tier_seq == tier_seq.max())
    top = WholeBlocks(chosen, packed[chosen], lay[chosen], block[seq][chosen])
    weight = _segment_weights(seg_src, seg_dst, chain)
    ends = np.concatenate([seg_src, seg_dst])
    others = np.concatenate([seg_dst, seg_src])
    weights = np.concatenate([weight, weight])
    total_weight = np.bincount(ends, weights=weights, minlength=n)
    connected = total_weight > 0
    for r in range(rounds):
        pull = np.bincount(ends, weights=weights * x[others], minlength=n)
        desired = x.copy()
        desired[connected] = pull[connected] / total_weight[connected]
        # A block moves as one vertical line: to the mean of what its members want.
        desired = np.bincount(block, weights=desired, minlength=n)[block] / in_block[block]
        # Blocks take precedence over single nodes in the last rounds only: that costs a pass
        # per tier, and the early rounds only need to bring everything near its place.
        tiers = tier_seq if r >= rounds - TIERED_ROUNDS else None
        x[seq] = _project(desired[seq], packed, lay, tiers, top)
    for _ in range(STRAIGHTEN_ROUNDS):
        x = _straighten(x, block, in_block, seq, lay, w, gap)
    return x


def _straighten(x, block, in_block, seq, lay, w, gap):
    """Straighten bent blocks where that fits.

    Every member of a block may move within the room its current neighbours leave; where these
    intervals overlap for the whole block, it moves to the point of the overlap nearest its mean
    x. Two neighbours that moved into each other are both put back.
    """
    n = len(x)
    xs = x[seq]
    half = w / 2
    same_left = np.zeros(n, dtype=bool)
    same_left[1:] = lay[1:] == lay[:-1]
    same_right = np.zeros(n, dtype=bool)
    same_right[:-1] = same_left[1:]
    lo = np.where(same_left, np.roll(xs + half, 1) + gap + half, -np.inf)
    hi = np.where(same_right, np.roll(xs - half, -1) - gap - half, np.inf)
    block_seq = block[seq]
    block_lo = np.full(n, -np.inf)
    block_hi = np.full(n, np.inf)
    np.maximum.at(block_lo, block_seq, lo)
    np.minimum.at(block_hi, block_seq, hi)
    mean = np.bincount(block, weights=x, minlength=n) / np.maximum(in_block, 1)
    target = np.clip(mean, block_lo, block_hi)
    fits = block_lo <= block_hi + 1e-6
    moved_x = np.where(fits[block], target[block], x)
    # Undo pairs of neighbours that both moved and now overlap.
    ms = moved_x[seq]
    overlap = same_left & (ms - half < np.roll(ms + half, 1) + gap - 1e-6)
    undo = np.zeros(n, dtype=bool)
    undo[block_seq[overlap]] = True
    undo[block_seq[np.flatnonzero(overlap) - 1]] = True
    return np.where(undo[block], x, moved_x)


def align_blocks(n, pos, seg_src, seg_dst, layer, inner=None, depth=None) -> np.ndarray:
    """Vertical alignment: each node's block, named by its top node.

    As in Brandes and Koepf: a node aligns with its median upper neighbour, that neighbour with
    one lower node only (the one nearest its own median), and alignments between two layers
    must not cross, so every block can be drawn as one straight vertical line. Links between
    two dummies (``inner``, a mask over nodes) come first, so long edges stay straight; the
    others are kept only if they cross none of those and, scanning left to right, their upper
    end lies right of every earlier candidate's.
    """
    block = np.arange(n)
    if len(seg_src) == 0:
        return block
    # Median upper neighbour of each lower node: sort segments by (lower, upper position).
    degree = np.bincount(seg_dst, minlength=n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=start[1:])
    has = np.flatnonzero(degree > 0)
    if depth is None:
        order = np.lexsort((pos[seg_src], seg_dst))
        median = seg_src[order][start[has] + (degree[has] - 1) // 2]
    else:
        # The deepest upper neighbour (leftmost of equals) instead of the median one: a chain
        # fed by short side branches (weights, biases) then stays one straight line.
        order = np.lexsort((pos[seg_src], -depth[seg_src], seg_dst))
        median = seg_src[order][start[has]]
    # Of the lower nodes that chose one upper node, it keeps one that goes on (a dead end, like
    # a named intermediate hanging off a chain, would bend the chain at every step: a staircase),
    # then the one nearest its median position.
    dead_end = np.bincount(seg_src, minlength=n)[has] == 0
    choice = np.lexsort((np.abs(pos[has] - _lower_median_pos(n, pos, seg_src, seg_dst)[median]),
                         dead_end, median))
    cand_low, cand_up = has[choice], median[choice]
    first = np.concatenate(([True], cand_up[1:] != cand_up[:-1]))
    cand_low, cand_up = cand_low[first], cand_up[first]
    span = int(pos.max()) + 2
    if inner is None:
        inner = np.zeros(n, dtype=bool)
    is_inner = inner[cand_low] & inner[cand_up]
    kept_low, kept_up = _non_crossing(cand_low[is_inner], cand_up[is_inner], pos, layer, span)
    low, upp = cand_low[~is_inner], cand_up[~is_inner]
    if len(kept_low) and len(low):
        # Keep a link only if it lies between the same two kept inner links at both ends.
        inner_low_key = np.sort(layer[kept_low] * span + pos[kept_low])
        inner_up_key = np.sort(layer[kept_low] * span + pos[kept_up])
        below = np.searchsorted(inner_low_key, layer[low] * span + pos[low])
        above = np.searchsorted(inner_up_key, layer[low] * span + pos[upp])
        clear = below == above
        low, upp = low[clear], upp[clear]
    other_low, other_up = _non_crossing(low, upp, pos, layer, span)
    link_up = np.arange(n)
    link_up[kept_low] = kept_up
    link_up[other_low] = other_up
    # Each block is named by its top node: follow the links up (pointer doubling).
    while True:
        nxt = link_up[link_up]
        if np.array_equal(nxt, link_up):
            return link_up
        link_up = nxt


def _non_crossing(low, upp, pos, layer, span):
    """The links kept by a left-to-right scan: each must start right of all earlier ones."""
    order = np.lexsort((pos[low], layer[low]))
    low, upp = low[order], upp[order]
    lifted = pos[upp] + layer[low] * span
    before = np.concatenate(([-1], np.maximum.accumulate(lifted)[:-1]))
    keep = lifted > before
    return low[keep], upp[keep]


def _lower_median_pos(n, pos, seg_src, seg_dst) -> np.ndarray:
    """Position of each node's median lower neighbour (its own position if it has none)."""
    order = np.lexsort((pos[seg_dst], seg_src))
    low = seg_dst[order]
    degree = np.bincount(seg_src, minlength=n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=start[1:])
    out = pos.astype(np.float64).copy()
    has = np.flatnonzero(degree > 0)
    out[has] = pos[low[start[has] + (degree[has] - 1) // 2]]
    return out


def _segment_weights(seg_src, seg_dst, chain) -> np.ndarray:
    dummies = (chain[seg_src] >= 0).astype(np.int8) + (chain[seg_dst] >= 0)
    return np.choose(dummies, [_WEIGHT_REAL, _WEIGHT_MIXED, _WEIGHT_DUMMY])


def _project(desired, packed, lay, tier=None, top=None) -> np.ndarray:
    """A placement near ``desired`` keeping order and spacing (see the module docstring).

    With ``tier`` (an int per node) and ``top`` (the :class:`WholeBlocks` of the highest tier;
    ``desired`` equal within a block), the blocks of the highest tier are placed first, each as
    a whole, so they stay straight; each lower tier is then placed, layer by layer, within the
    gaps the higher ones left. So where a long block and a short one want the same place, the
    short one gives way.
    """
    y = desired - packed
    span = float(np.abs(y).max()) * 4 + 1.0
    base = lay * span  # lifting each layer above the last: layers never mix in running max/min
    if tier is None:
        return _monotone(y, base) + packed
    placed = np.zeros(len(y), dtype=bool)
    highest = int(tier.max())
    for level in range(highest, -1, -1):
        now = tier == level
        if not now.any():
            continue
        if level == highest:
            y[top.chosen] = top.place(desired[top.chosen]) - packed[top.chosen]
            placed |= now
            continue
        low = np.maximum.accumulate(np.where(placed, y + base, base - span / 2)) - base
        high = np.minimum.accumulate(np.where(placed, y + base, base + span / 2)[::-1])[::-1] - base
        y = np.where(now, np.clip(y, low, high), y)
        placed |= now
        chosen = np.flatnonzero(placed)
        y[chosen] = _monotone(y[chosen], base[chosen])
    return y + packed


class WholeBlocks:
    """Places the blocks of some nodes, each block at one x (so it stays straight).

    Pushing every block right of its left neighbours (by their packed distance) and, separately,
    left of its right neighbours each give a feasible placement; the constraints are linear, so
    their mean is feasible too. Blocks do not cross (alignment keeps their links apart), so the
    constraints form a DAG and each push is one longest-path pass in topological order. The
    constraints and their order are worked out once; each placement only walks them.

    Parameters
    ----------
    chosen : ndarray
        Positions (in the left-to-right, layer-by-layer sequence) of the nodes to place.
    packed, lay, block : ndarray
        For those nodes: packed offsets, layers and block ids.
    """

    def __init__(self, chosen, packed, lay, block) -> None:
        self.chosen = chosen
        ids, self.index = np.unique(block, return_inverse=True)
        same = lay[1:] == lay[:-1]
        left, right = self.index[:-1][same], self.index[1:][same]
        spacing = (packed[1:] - packed[:-1])[same]
        # Two long blocks side by side meet in many layers: keep one constraint per pair.
        order = np.lexsort((-spacing, right, left))
        left, right, spacing = left[order], right[order], spacing[order]
        first = np.ones(len(left), dtype=bool)
        first[1:] = (left[1:] != left[:-1]) | (right[1:] != right[:-1])
        self.right_of: list[list] = [[] for _ in ids]
        self.left_of: list[list] = [[] for _ in ids]
        for a, b, gap in zip(left[first].tolist(), right[first].tolist(),
                             spacing[first].tolist()):
            self.right_of[a].append((b, gap))
            self.left_of[b].append((a, gap))
        self.order = _topological(self.right_of, self.left_of)
        self.n_blocks = len(ids)

    def place(self, desired) -> np.ndarray:
        """x per chosen node, each block near the mean of its members' ``desired``."""
        want = np.bincount(self.index, weights=desired, minlength=self.n_blocks)
        want /= np.bincount(self.index, minlength=self.n_blocks)
        pushed_right = want.tolist()
        for a in self.order:
            xa = pushed_right[a]
            for b, gap in self.right_of[a]:
                if xa + gap > pushed_right[b]:
                    pushed_right[b] = xa + gap
        pushed_left = want.tolist()
        for b in reversed(self.order):
            xb = pushed_left[b]
            for a, gap in self.left_of[b]:
                if xb - gap < pushed_left[a]:
                    pushed_left[a] = xb - gap
        placed = (np.asarray(pushed_right) + np.asarray(pushed_left)) / 2
        return placed[self.index]


def _topological(right_of: list, left_of: list) -> list:
    """Kahn's order of the blocks by the left-of relation (ties by index; a cycle, which the
    alignment rules out, is broken at its smallest block)."""
    n = len(right_of)
    indeg = [len(edges) for edges in left_of]
    ready = deque(i for i in range(n) if indeg[i] == 0)
    done = [False] * n
    order: list[int] = []
    scan = 0
    while len(order) < n:
        if not ready:
            while done[scan]:
                scan += 1
            ready.append(scan)
        a = ready.popleft()
        if done[a]:
            continue
        done[a] = True
        order.append(a)
        for b, _ in right_of[a]:
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
    return order


def _monotone(y, base) -> np.ndarray:
    """Per layer, a non-decreasing sequence near ``y``: the mean of both one-sided projections."""
    lifted = y + base
    forward = np.maximum.accumulate(lifted)
    backward = np.minimum.accumulate(lifted[::-1])[::-1]
    return (forward + backward) / 2 - base


def _segmented_cumsum(step, same_layer) -> np.ndarray:
    total = np.cumsum(step)
    starts = np.flatnonzero(~same_layer)
    base = np.repeat(total[starts], np.diff(np.append(starts, len(step))))
    return total - base


def _per_layer_last(values, lay) -> np.ndarray:
    last = np.zeros(int(lay.max()) + 1)
    ends = np.flatnonzero(np.append(lay[1:] != lay[:-1], True))
    last[lay[ends]] = values[ends]
    return last
