"""Repeated blocks of several ops: a loop body written without modules, drawn once and counted.

``h = torch.relu(h @ W[i] + b[i])`` six times makes six copies of MmBackward0 → AddBackward0 →
ReluBackward0, each with its own weights. :func:`repeated_blocks` finds such copies: the labels
of the function nodes, in creation order, repeat with a period of ``p`` ops (a loop body creates
its ops in the same order every time), and the nodes of each copy are wired alike. Found, they
fold like a run of one op (:func:`engine.graph.fold.fold_runs`) into one box
``×6 MmBackward0 → AddBackward0 → ReluBackward0``.

A copy is a *block*: ``p`` consecutive function nodes (``p`` >= 2, not all one op: those are a
run's). Consecutive blocks form a repeat when each block

- has the same op names and module groups in the same order, and the same edges inside it (by
  position in the block and input slot);
- has its own leaves: an AccumulateGrad whose every use is in the block, and its leaf tensor,
  fold with it (the weights of a layer);
- takes every other input from the block before it, always along the same edges, or from a node
  that feeds every block at the same slot (a tensor all layers share).

The first block may take its chain inputs from anywhere before it (or nowhere: the batch needs no
grad; a leaf there is the chain's input and stays outside). Whatever the repeat feeds afterwards
stays outside, its edges moved to the box. Because every input from outside comes from before
the first block, folding never makes a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx
import numpy as np

MAX_BLOCK_OPS = 128
"""Longest block looked for, in function nodes (a transformer layer is a few dozen)."""


class Run(list):
    """The node ids one folded box stands for: the repeated ops in creation order, then the
    leaves folded with them (tensor and AccumulateGrad), in creation order.

    A list, so that ``run[0]`` (the first op, which names the box) and ``len(run)`` read as for
    any list of ids. ``unit``: the labels of one repetition; ``count``: how many there are.
    """

    def __init__(self, ids, unit, count: int) -> None:
        super().__init__(ids)
        self.unit = tuple(unit)
        self.count = count

    @property
    def label(self) -> str:
        """``MulBackward0 ×2000`` for one op; ``×6 MmBackward0 → AddBackward0`` for a block (the
        count first, where an elided label still shows it)."""
        if len(self.unit) == 1:
            return f"{self.unit[0]} ×{self.count}"
        return f"×{self.count} " + " → ".join(self.unit)


@dataclass(frozen=True)
class _Wiring:
    """How one block is wired, by position in the block (``slots``: the consumer's inputs)."""

    inside: frozenset  # (from position, to position, slots)
    leaves: tuple  # (to position, slots, ids of the accumulator and its tensor), sorted
    before: frozenset  # (position in the block before, to position, slots)
    outside: frozenset  # (node id, to position, slots): any other input

    @property
    def leaf_slots(self) -> tuple:
        return tuple((j, slots) for j, slots, _ in self.leaves)

    @property
    def own(self) -> list:
        """The ids of the leaves folded with the block."""
        return [n for _, _, ids in self.leaves for n in ids]

    def follows(self, other: _Wiring) -> bool:
        """Wired as ``other``, a block after the first."""
        return (self.inside == other.inside and self.leaf_slots == other.leaf_slots
                and self.before == other.before and self.outside == other.outside)

    def as_first(self, second: _Wiring) -> _Wiring | None:
        """This block's wiring as the first of a repeat whose next block is ``second``, or None
        if it cannot begin one. It must be wired alike inside and read the shared inputs;
        where ``second`` reads the block before, it may read anything or nothing (a leaf there
        is the chain's input, not the block's own: it stays outside)."""
        chain = {(j, slots) for _, j, slots in second.before}
        leaves = tuple(leaf for leaf in self.leaves if leaf[:2] not in chain)
        first = replace(self, leaves=leaves)
        if self.inside != second.inside or first.leaf_slots != second.leaf_slots:
            return None
        if not second.before or not second.outside <= self.outside:
            return None
        extra = {(j, slots) for _, j, slots in self.outside - second.outside}
        extra.update((j, slots) for _, j, slots in self.before)
        return first if extra <= chain else None


def repeated_blocks(graph: nx.DiGraph, min_count: int = 4, *,
                    max_ops: int = MAX_BLOCK_OPS) -> list[Run]:
    """The repeats of a block of 2 or more ops in ``graph``, each at least ``min_count`` times.

    Parameters
    ----------
    graph : networkx.DiGraph
        A graph model (``build_graph``), module groups folded or not.
    min_count : int
        Fewer repetitions are left alone (the rule for runs of one op).
    max_ops : int
        The longest block looked for, in ops.

    Returns
    -------
    list of Run
        In no particular order; no node is in two. The repeat that folds the most ops wins (a
        loop around a loop folds whole), then the shortest block (six copies of Mm → Add →
        Relu, not three of twice that); where a repeat could start at several ops, it starts
        as early as it can.
    """
    min_count = max(2, min_count)  # a repeat is two copies at least
    ops, keys, code_list = [], {}, []
    for n, attrs in graph.nodes(data=True):
        if attrs.get("kind") == "function":
            ops.append(n)
            code_list.append(keys.setdefault((attrs.get("label"), attrs.get("group")), len(keys)))
    n_ops = len(ops)
    if n_ops < 2 * min_count:
        return []
    codes = np.asarray(code_list, dtype=np.int64)
    candidates = []  # (ops covered, block length, first op index, firsts, wirings)
    covered: dict = {}  # block length -> the ops its repeats cover
    for p in range(2, min(max_ops, n_ops // min_count) + 1):
        same = np.concatenate(([0], (codes[:-p] == codes[p:]).view(np.int8), [0]))
        step = np.diff(same)
        starts, stops = np.flatnonzero(step == 1), np.flatnonzero(step == -1)
        # same[j] says op j + p repeats op j: a run of them from a to b is p-periodic over
        # [a, b + p), (b - a + p) // p copies.
        long = stops - starts >= (min_count - 1) * p
        for a, b in zip(starts[long].tolist(), stops[long].tolist()):
            q = _period(codes[a:a + p])
            if q == 1 or (q < p and q in covered and covered[q][a:b + p].all()):
                continue  # one op repeated (a run's), or what copies of a shorter block fold
            for firsts, wirings in _repeats_in(graph, ops, a, b + p, p, min_count):
                candidates.append((len(firsts) * p, p, firsts[0], firsts, wirings))
                mask = covered.setdefault(p, np.zeros(n_ops, dtype=bool))
                mask[firsts[0]:firsts[-1] + p] = True
    # The repeat that folds the most ops first (an outer loop before the inner loop in its
    # body), then the shorter block, then the earlier.
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used = np.zeros(n_ops, dtype=bool)
    position = None
    found = []
    for _, p, start, firsts, wirings in candidates:
        end = firsts[-1] + p
        if used[start:end].any():
            continue
        used[start:end] = True
        if position is None:
            position = {n: i for i, n in enumerate(graph)}
        ids = [n for i in firsts for n in ops[i:i + p]]
        leaves = sorted((n for w in wirings for n in w.own), key=position.__getitem__)
        unit = [graph.nodes[n].get("label") for n in ops[start:start + p]]
        found.append(Run(ids + leaves, unit, len(firsts)))
    return found


def _period(unit: np.ndarray) -> int:
    """The length of the shortest sequence ``unit`` is copies of (2 for ``[a, b, a, b]``)."""
    p = len(unit)
    return next(q for q in range(1, p + 1)
                if p % q == 0 and (unit.reshape(-1, q) == unit[:q]).all())


def _repeats_in(graph, ops, start, end, p, min_count) -> list:
    """The repeats among ops[start:end] (labels p-periodic there), at the phase that folds the
    most blocks (the earliest of equals), as (firsts, wirings) pairs."""
    best: list = []
    best_size = 0
    whole = (end - start) // p
    # Phases past (end - start) % p fit one block fewer.
    for phase in range(min(p, (end - start) % p + 1)):
        firsts = list(range(start + phase, end - p + 1, p))
        spans = _phase_repeats(graph, ops, firsts, p, min_count)
        size = sum(len(f) for f, _ in spans)
        if size > best_size:
            best, best_size = spans, size
        if best_size == whole:
            break  # nothing folds more
    return best


def _phase_repeats(graph, ops, firsts, p, min_count) -> list:
    """Greedy, left to right: the longest stretches of blocks (by their first op's index in
    ``ops``) wired alike, ``min_count`` or more; as (firsts, wirings) pairs."""
    where: dict = {}
    for k, i in enumerate(firsts):
        for j in range(p):
            where[ops[i + j]] = (k, j)
    wirings = [_wiring(graph, ops[i:i + p], k, where) for k, i in enumerate(firsts)]
    spans = []
    m = len(firsts)
    s = 0
    while s + min_count <= m:
        second = wirings[s + 1]
        first = wirings[s].as_first(second)
        if first is None:
            s += 1
            continue
        e = s + 1
        while e + 1 < m and wirings[e + 1].follows(second):
            e += 1
        if e - s + 1 >= min_count:
            spans.append((firsts[s:e + 1], [first, *wirings[s + 1:e + 1]]))
            s = e + 1
        else:
            s += 1
    return spans


def _wiring(graph, block, k, where) -> _Wiring:
    """How block ``k`` (its op ids) is wired; ``where``: op id -> (block, position)."""
    pred = graph._pred
    members = set(block)
    inside, before, outside, leaves = set(), set(), set(), []
    for j, v in enumerate(block):
        for u, attrs in pred[v].items():
            slots = tuple(attrs.get("slots") or ())
            at = where.get(u)
            if at is not None and at[0] == k:
                inside.add((at[1], j, slots))
            elif at is not None and at[0] == k - 1:
                before.add((at[1], j, slots))
            else:
                leaf = _own_leaf(graph, u, members)
                if leaf is None:
                    outside.add((u, j, slots))
                else:
                    leaves.append((j, slots, leaf))
    return _Wiring(frozenset(inside), tuple(sorted(leaves)), frozenset(before),
                   frozenset(outside))


def _own_leaf(graph, node_id, members) -> tuple | None:
    """``node_id`` and its leaf tensor if it is an AccumulateGrad used only by ``members``
    (as a tuple)."""
    nodes, succ, pred = graph.nodes, graph._succ, graph._pred
    if nodes[node_id].get("kind") != "accumulate" or not succ[node_id].keys() <= members:
        return None
    tensors = list(pred[node_id])
    if any(nodes[t].get("kind") != "tensor" or pred[t] or len(succ[t]) != 1 for t in tensors):
        return None
    return (node_id, *tensors)
