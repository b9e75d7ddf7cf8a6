"""``model.same_graph``: whether a new graph model shows exactly what the last one showed (the
worker then sends ``GraphUnchanged`` instead of the graph). Anything the views could draw
differently makes it False: a value, a grad, a flag, an edge's gradient, the order."""

from __future__ import annotations

import numpy as np
import pytest

import engine as torch
from engine.graph import build_graph
from engine.graph.model import same_graph


def _names():
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    loss = ((w * 2).tanh().sum() + b).sum()
    loss.backward(retain_graph=True)
    return {"w": w, "b": b, "loss": loss}


def test_a_rebuild_of_unchanged_names_is_the_same_graph():
    names = _names()
    before = build_graph(names)
    after = build_graph(names, previous=before)
    assert after is not before and same_graph(after, before)
    assert not same_graph(after, None)


@pytest.mark.parametrize("change", [
    lambda g: g.nodes["t:w"].__setitem__("value", g.nodes["t:w"]["value"] + 1),  # a value
    lambda g: g.nodes["t:w"].__setitem__("requires_grad", False),  # a flag
    lambda g: g.nodes["t:b"].__setitem__("value", np.array([-0.0], np.float32)),  # -0.0
    lambda g: g.nodes["t:w"].__setitem__("value", g.nodes["t:w"]["value"].astype(np.float64)),
    lambda g: next(iter(g.edges.values())).__setitem__("count", 2),  # an edge's attribute
    lambda g: next(iter(g.edges.values())).__setitem__("grad", np.ones(3, np.float32)),
    lambda g: g.add_node("extra", kind="tensor"),  # another node
    lambda g: g.graph.__setitem__("changed", ["t:w"]),  # build_graph said something changed
])
def test_anything_the_views_draw_differently_is_another_graph(change):
    names = _names()
    before = build_graph(names)
    after = build_graph(names, previous=before)
    change(after)
    assert not same_graph(after, before)


def test_the_order_of_nodes_counts():
    import networkx as nx

    names = _names()
    before = build_graph(names)
    reordered = nx.DiGraph(**build_graph(names, previous=before).graph)
    reordered.add_nodes_from(reversed(list(before.nodes(data=True))))
    reordered.add_edges_from(before.edges(data=True))
    assert not same_graph(reordered, before)
