"""Layout benchmark: time and crossings for 1,000- and 10,000-node graphs; prints a table.

    python tests/benchmarks/bench_layout.py [--repeat 3]

Families: ``trace`` is shaped like an autograd trace (mostly a chain, weights feeding in, skip
connections, a few inputs reused far down), ``engine`` is a real engine graph (a deep tanh MLP
built with ``engine``, through ``build_graph``), ``wide`` a shallow random DAG with many long edges
(a hard case). "creation" is the crossings of creation order, where crossing reduction starts;
"final" what the layout draws. Times are the best of ``--repeat`` runs on this machine, wall
clock and this process's CPU time (the machine is shared); "unchanged" is a relayout of the same
structure with ``previous`` given.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import numpy as np

import engine as T
from engine.gc_policy import settle_after_imports
from engine.graph import build_graph, layout
from engine.graph.layering import assign_layers, make_proper
from engine.graph.synthetic import trace_like_dag, wide_random_dag


def engine_mlp(n_nodes: int):
    """A real engine graph: a deep tanh MLP (weight @ h + bias, tanh) until ~n_nodes nodes."""
    T.manual_seed(0)
    ns = {"x": T.randn(4)}
    h = ns["x"]
    k = 0
    while 7 * (k + 1) + 4 < n_nodes:  # per layer: 2 leaves, 2 accumulators, mv, add, tanh
        w = T.randn(4, 4, requires_grad=True)
        b = T.zeros(4, requires_grad=True)
        h = (w @ h + b).tanh()
        ns[f"w{k}"], ns[f"b{k}"] = w, b
        k += 1
    ns["loss"] = h.sum()
    start = time.perf_counter()
    graph = build_graph(ns)
    return graph, time.perf_counter() - start


def proper_size(graph) -> tuple[int, int]:
    ids = list(graph.nodes)
    index = {n: i for i, n in enumerate(ids)}
    src = np.array([index[u] for u, _ in graph.edges], dtype=np.int64)
    dst = np.array([index[v] for _, v in graph.edges], dtype=np.int64)
    layer, reversed_edges = assign_layers(len(ids), src, dst)
    proper = make_proper(len(ids), layer, src, dst, reversed_edges)
    return proper.n, int(layer.max()) + 1


def measure(graph, repeat: int):
    """Best wall-clock and CPU time of ``repeat`` layouts, and the time of an unchanged relayout."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = layout(graph)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    same_structure = graph.copy()
    start = time.perf_counter()
    again = layout(same_structure, previous=result)
    incremental = time.perf_counter() - start
    assert again is result
    return result, wall, cpu, incremental


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args()
    settle_after_imports()  # as the app and the CLI do
    header = (f"{'graph':<8}{'nodes':>7}{'edges':>7}{'+dummies':>10}{'layers':>8}{'wall s':>8}"
              f"{'cpu s':>7}{'unchanged s':>13}{'creation':>10}{'final':>9}{'change':>8}")
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        cases = [("trace", trace_like_dag(n), None), ("engine", *engine_mlp(n)),
                 ("wide", wide_random_dag(n), None)]
        for name, graph, build_time in cases:
            lay, wall, cpu, incremental = measure(graph, args.repeat)
            total, layers = proper_size(graph)
            change = (lay.crossings - lay.initial_crossings) / max(1, lay.initial_crossings)
            print(f"{name:<8}{graph.number_of_nodes():>7}{graph.number_of_edges():>7}"
                  f"{total:>10}{layers:>8}{wall:>8.3f}{cpu:>7.3f}{incremental:>13.4f}"
                  f"{lay.initial_crossings:>10}{lay.crossings:>9}{change:>8.0%}")
            if build_time is not None:
                print(f"{'':<8}(build_graph of that engine graph: {build_time:.3f} s)")
    print(f"\nload average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores. The machine is "
          "shared: wall times are noisy; cpu is this process's own CPU time.")


if __name__ == "__main__":
    main()
