"""Synthetic graphs shaped like autograd traces, for benchmarks and layout tests.

An autograd trace is mostly a chain: an op reads what was just computed, and often a leaf (a
weight, a constant). Now and then it reads something computed long before (a residual, an input
used again), which makes a long edge. Nodes are added in creation order, as :func:`build_graph`
adds them.
"""

from __future__ import annotations

import networkx as nx
import numpy as np


def trace_like_dag(n: int, seed: int = 0, weight_rate: float = 0.5, branch_rate: float = 0.1,
                   residual_rate: float = 0.05, reuse_rate: float = 0.002) -> nx.DiGraph:
    """A random DAG of ``n`` nodes, ``tensor`` leaves and ``function`` ops, in creation order.

    Parameters
    ----------
    weight_rate : float
        Chance that an op also reads a fresh leaf (a weight or a constant), created just before.
    branch_rate : float
        Chance that an op starts from one of the last ten results instead of the latest.
    residual_rate : float
        Chance that an op adds a result from up to 50 ops back (a skip connection).
    reuse_rate : float
        Chance that an op reads any earlier node again (an input used twice): a very long edge.
    """
    rng = np.random.default_rng(seed)
    graph = nx.DiGraph()
    ops: list[int] = []

    def add(kind: str) -> int:
        i = graph.number_of_nodes()
        graph.add_node(f"n{i}", kind=kind, label=("leaf" if kind == "tensor" else "Op") + str(i))
        return i

    add("tensor")
    while graph.number_of_nodes() < n:
        inputs = []
        if not ops:
            inputs.append(0)
        elif rng.random() < branch_rate:
            inputs.append(ops[-1 - int(rng.integers(0, min(10, len(ops))))])
        else:
            inputs.append(ops[-1])
        r = rng.random()
        if r < weight_rate and graph.number_of_nodes() < n - 1:
            inputs.append(add("tensor"))
        elif r < weight_rate + residual_rate and len(ops) > 1:
            inputs.append(ops[-1 - int(rng.integers(0, min(50, len(ops))))])
        elif r < weight_rate + residual_rate + reuse_rate:
            inputs.append(int(rng.integers(0, graph.number_of_nodes())))
        i = add("function")
        for j in dict.fromkeys(inputs):
            graph.add_edge(f"n{j}", f"n{i}")
        ops.append(i)
    return graph


def wide_random_dag(n: int, seed: int = 0) -> nx.DiGraph:
    """A wide, shallow random DAG with many long edges: a hard case, not a typical one."""
    rng = np.random.default_rng(seed)
    graph = nx.DiGraph()
    for i in range(n):
        graph.add_node(f"n{i}", kind="function", label=f"Op{i}")
        if i < 2 or rng.random() < 0.25:
            continue
        for _ in range(1 if rng.random() < 0.5 else 2):
            j = i - 1 - int(rng.integers(0, min(10, i))) if rng.random() < 0.85 else int(
                rng.integers(0, i))
            graph.add_edge(f"n{j}", f"n{i}")
    return graph
