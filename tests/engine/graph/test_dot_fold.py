"""Graphviz DOT export and folding module groups."""

from __future__ import annotations

import re

import networkx as nx

import engine as T
from engine.graph import build_graph, fold, to_dot
from tests.engine.graph.graph_cases import seed_demo


def test_dot_of_the_seed_demo_after_backward():
    ns = seed_demo()
    steps = list(ns["z"].backward_steps())
    dot = to_dot(build_graph(ns, steps))
    assert dot.startswith('digraph "gradstep" {') and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}")
    assert re.search(r'"t:t1" \[label="t1\\n\(3,\)\\ngrad \[2\., 4\., 6\.\]", shape=box, '
                     r'style="filled,bold"', dot)
    assert '"t:t1/AccumulateGrad" [label="AccumulateGrad", shape=box, style="filled,rounded"' in dot
    assert '[label="MulBackward0", shape=ellipse' in dot
    # Both uses of t1 summed on the edge, and the multiplicity shown.
    assert '"t:t1/AccumulateGrad" -> "t2/grad_fn:AddBackward0/0:MulBackward0" ' \
           '[label="x2 [2., 4., 6.]"];' in dot
    assert '"z/grad_fn:SumBackward0" -> "t:z" [label="1."];' in dot
    assert dot.count('color="#dc2626"') == 4  # the four nodes that ran


def test_dot_escapes_names_and_nests_groups():
    g = nx.DiGraph()
    g.add_node('say "hi"\\', kind="tensor", label='say "hi"\\', group="model.fc1", shape=(2,))
    g.add_node("op", kind="function", label="MulBackward0", group="model")
    g.add_edge('say "hi"\\', "op")
    dot = to_dot(g)
    assert '"say \\"hi\\"\\\\"' in dot
    outer = dot.index('label="model"; style=dashed;')
    inner = dot.index('label="model.fc1"; style=dashed;')
    assert outer < inner
    assert dot.count("subgraph cluster_") == 2


def test_fold_keeps_the_edges_in_and_out():
    x = T.ones(2, requires_grad=True)
    w = T.ones(2, requires_grad=True)
    h = x * w
    y = h.relu()
    loss = y.sum()
    ns = {"x": x, "w": w, "h": h, "y": y, "loss": loss}
    h.grad_fn.metadata["module"] = "net.layer"
    y.grad_fn.metadata["module"] = "net"
    g = build_graph(ns, list(loss.backward_steps()))
    folded = fold(g, "net")
    members = [n for n, grp in g.nodes(data="group") if grp and grp.startswith("net")]
    assert len(members) == 2
    assert folded.nodes["group:net"]["members"] == members
    assert folded.nodes["group:net"]["kind"] == "group"
    assert set(folded.predecessors("group:net")) == {"t:x/AccumulateGrad", "t:w/AccumulateGrad"}
    assert set(folded.successors("group:net")) == {"t:h", "t:y", "loss/grad_fn:SumBackward0"}
    edge = folded.edges["group:net", "loss/grad_fn:SumBackward0"]
    assert edge["count"] == 1 and len(edge["grads"]) == 1 and edge["grad"] is None
    assert folded.number_of_nodes() == g.number_of_nodes() - 1
    # Folding the inner group only leaves the outer op alone, inside ``net``.
    inner = fold(g, "net.layer")
    assert inner.nodes["group:net.layer"]["group"] == "net"
    assert "y/grad_fn:ReluBackward0" in inner
    # Several groups at once: the outer one takes the inner one with it.
    both = fold(g, {"net.layer", "net"})
    assert list(both.nodes) == list(folded.nodes)
    # Unknown group: an equal copy.
    same = fold(g, "nothing")
    assert same is not g and list(same.nodes) == list(g.nodes)
