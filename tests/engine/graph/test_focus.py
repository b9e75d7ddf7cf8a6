"""The node the window points at: the last one a backward step ran, a data breakpoint's culprit."""

from __future__ import annotations

import networkx as nx

from engine.graph.focus import culprit_node, last_executed


def _two_logs() -> nx.DiGraph:
    # a = log(x); b = log(y): two LogBackward0 nodes, each behind its own tensor
    g = nx.DiGraph()
    for t in ("x", "y", "a", "b"):
        g.add_node(f"t:{t}", kind="tensor", name=t)
    g.add_node("f:1", kind="function", label="LogBackward0", executed_index=2)
    g.add_node("f:2", kind="function", label="LogBackward0", executed_index=1)
    g.add_edges_from([("t:x", "f:1"), ("f:1", "t:a"), ("t:y", "f:2"), ("f:2", "t:b")])
    return g


def test_the_last_executed_node_is_the_one_with_the_largest_index():
    g = _two_logs()
    assert last_executed(g) == "f:1"
    g.nodes["f:2"]["executed_index"] = 5
    assert last_executed(g) == "f:2"
    assert last_executed(nx.DiGraph()) is None


def test_the_culprit_op_is_the_one_behind_the_culprit_tensor():
    g = _two_logs()
    assert culprit_node(g, [("op", "LogBackward0"), ("tensor", "a")]) == "f:1"
    assert culprit_node(g, [("op", "LogBackward0"), ("tensor", "b")]) == "f:2"
    # no op of that name drawn: the tensor itself
    assert culprit_node(g, [("op", "ExpBackward0"), ("tensor", "b")]) == "t:b"
    assert culprit_node(g, [("tensor", "nowhere")]) is None
