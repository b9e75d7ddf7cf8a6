"""Nodes side by side that differ only by an index fold into one box: a loop's stacked
outputs ``outs[0]`` ... ``outs[n]`` read as ``outs[0..n] ×n+1`` (LSTM graphs at fit)."""

from __future__ import annotations

import networkx as nx

from engine.graph.fold import fold, fold_runs, side_by_side
from tests.engine.graph.test_blocks import engine_graph

STACKED = """
torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
h = torch.randn(2, 3)
outs = []
for t in range(6):
    h = torch.tanh(h @ W)
    outs.append(h * 2)
extra = [h + 1, h - 1]
loss = torch.stack(outs).sum() + torch.stack(extra).sum()
"""


def _named(graph, prefix):
    return sorted(n for n, a in graph.nodes(data=True)
                  if a["kind"] == "tensor" and str(a.get("name") or "").startswith(prefix))


def test_siblings_with_one_producer_and_consumer_each_fold_when_alike():
    graph = engine_graph(STACKED, backward=True)
    # each outs[t] has its own producer: nothing side by side before the loop body is folded
    assert not [r for r in side_by_side(graph, 4) if _named(graph, "outs[") == sorted(r)]
    # with the producers in one box (as a folded module is), the six outputs stand side by side
    producers = {p for o in _named(graph, "outs[") for p in graph.predecessors(o)}
    body = producers | {q for p in producers for q in nx.ancestors(graph, p)
                        if graph.nodes[q]["kind"] != "tensor"}
    for node_id in body:
        graph.nodes[node_id]["group"] = "body"
    folded = fold(graph, "body")
    sets = side_by_side(folded, 4)
    assert [sorted(r) for r in sets] == [_named(graph, "outs[")]
    (run,) = sets
    assert run.label == "outs[0..5] ×6" and run.count == 6
    # extra[0] and extra[1] come from two different ops: never alike, however few are asked
    assert [sorted(r) for r in side_by_side(folded, 2)] == [_named(graph, "outs[")]
    boxed = fold_runs(folded, sets)
    assert nx.is_directed_acyclic_graph(boxed)
    (box,) = [n for n, a in boxed.nodes(data=True) if a.get("run")]
    assert sorted(boxed.nodes[box]["members"]) == _named(graph, "outs[")
    assert boxed.edges["group:body", box]["count"] == 6  # the six edges in, merged
