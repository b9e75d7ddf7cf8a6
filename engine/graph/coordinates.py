"""x coordinates for ordered layers: nodes centred on their neighbours, aligned chains straight.

First, vertical alignment as in Brandes and Koepf: each node joins the block of its median upper
neighbour when that link crosses no other kept link, so a long edge's dummies and every chain of
single links form one block. Then a few rounds, vectorised over the whole graph: every block moves
to the weighted mean x of its members' neighbours (segments between dummies weigh most, as in
Graphviz's ``dot``), then each layer is made feasible again: with ``y = x - S``, ``S`` the offsets
of the layer packed to the left, a placement keeps order and spacing iff ``y`` is non-decreasing;
the mean of the running maximum from the left and the running minimum from the right is such a
placement, close to the wish. That projection may bend a block where a layer is crowded; a last
pass straightens every block whose members all fit at the block's mean x.

(Placing whole blocks under the spacing constraints keeps every block straight but, pushed from
both sides, spreads the drawing several times wider; per layer keeps it compact.)
"""

from __future__ import annotations

import numpy as np

ROUNDS = 10
TIERED_ROUNDS = 3
STRAIGHTEN_ROUNDS = 2
TIER_SIZES = np.array([2, 3, 8])
"""Blocks of at least 2, 3 and 8 nodes take precedence, in that rising order, over smaller ones."""

# Segment weights by the kinds of their ends (Graphviz's omega: 1, 2, 8).
_WEIGHT_REAL = 1.0
_WEIGHT_MIXED = 2.0
_WEIGHT_DUMMY = 8.0


def assign_x(layer, pos, seg_src, seg_dst, chain, box_width, gap, rounds: int = ROUNDS):
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

    block = align_blocks(n, pos, seg_src, seg_dst, layer)
    in_block = np.bincount(block, minlength=n)
    tier_seq = np.searchsorted(TIER_SIZES, in_block[block], side="right")[seq]
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
        x[seq] = _project(desired[seq], packed, lay, tiers)
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


def align_blocks(n, pos, seg_src, seg_dst, layer) -> np.ndarray:
    """Vertical alignment: each node's block, named by its top node.

    As in Brandes and Koepf: a node aligns with its median upper neighbour, that neighbour with
    one lower node only (the one nearest its own median), and alignments between two layers
    must not cross (scanning left to right, a link is kept only if its upper end lies right of
    every earlier candidate's), so every block can be drawn as one straight vertical line.
    """
    block = np.arange(n)
    m = len(seg_src)
    if m == 0:
        return block
    # Median upper neighbour of each lower node: sort segments by (lower, upper position).
    order = np.lexsort((pos[seg_src], seg_dst))
    up, low = seg_src[order], seg_dst[order]
    degree = np.bincount(low, minlength=n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=start[1:])
    has = np.flatnonzero(degree > 0)
    median = up[start[has] + (degree[has] - 1) // 2]
    # Of the lower nodes that chose one upper node, it keeps the one nearest its median position.
    choice = np.lexsort((np.abs(pos[has] - _lower_median_pos(n, pos, seg_src, seg_dst)[median]),
                         median))
    cand_low, cand_up = has[choice], median[choice]
    first = np.concatenate(([True], cand_up[1:] != cand_up[:-1]))
    cand_low, cand_up = cand_low[first], cand_up[first]
    # No two links between the same layers may cross.
    order = np.lexsort((pos[cand_low], layer[cand_low]))
    cand_low, cand_up = cand_low[order], cand_up[order]
    lay = layer[cand_low]
    span = int(pos.max()) + 2
    lifted = pos[cand_up] + lay * span
    before = np.concatenate(([-1], np.maximum.accumulate(lifted)[:-1]))
    keep = lifted > before
    link_up = np.arange(n)
    link_up[cand_low[keep]] = cand_up[keep]
    # Each block is named by its top node: follow the links up (pointer doubling).
    while True:
        nxt = link_up[link_up]
        if np.array_equal(nxt, link_up):
            return link_up
        link_up = nxt


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


def _project(desired, packed, lay, tier=None) -> np.ndarray:
    """A placement near ``desired`` keeping order and spacing (see the module docstring).

    With ``tier`` (an int per node), the highest tier is placed first among itself, leaving room
    for the nodes between; each lower tier is then placed within the gaps the higher ones left.
    So where a long block and a short one want the same place, the short one gives way.
    """
    y = desired - packed
    span = float(np.abs(y).max()) * 4 + 1.0
    base = lay * span  # lifting each layer above the last: layers never mix in running max/min
    if tier is None:
        return _monotone(y, base) + packed
    placed = np.zeros(len(y), dtype=bool)
    for level in range(int(tier.max()), -1, -1):
        now = tier == level
        if not now.any():
            continue
        if placed.any():
            low = np.maximum.accumulate(np.where(placed, y + base, base - span / 2)) - base
            high = np.minimum.accumulate(
                np.where(placed, y + base, base + span / 2)[::-1])[::-1] - base
            y = np.where(now, np.clip(y, low, high), y)
        placed |= now
        chosen = np.flatnonzero(placed)
        y[chosen] = _monotone(y[chosen], base[chosen])
    return y + packed


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
