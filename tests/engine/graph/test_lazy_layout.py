"""A big graph with module groups gets its layout when a field is first read: the same layout,
usable everywhere a Layout is (``dataclasses.replace``, ``wrap_layout``, ``previous=``)."""

from __future__ import annotations

import dataclasses

import networkx as nx

from engine.graph import layout, wrap_layout
from engine.graph.layout import LAZY_NODES, _Inputs, _layout


def _chain(n: int, grouped: bool = True) -> nx.DiGraph:
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(f"n{i}", group=f"block{i // 50}" if grouped else None, kind="function")
        if i:
            g.add_edge(f"n{i - 1}", f"n{i}")
        if i > 3 and i % 7 == 0:
            g.add_edge(f"n{i - 3}", f"n{i}")
    return g


def test_a_big_grouped_graph_is_laid_out_on_first_read_as_it_would_be_at_once():
    g = _chain(LAZY_NODES + 500)
    lazy = layout(g)
    assert "positions" not in vars(lazy)  # nothing computed yet
    eager = _layout(_Inputs(g, lazy.signature))
    g.add_edge("n0", f"n{LAZY_NODES}")  # a change after the call does not leak in
    assert lazy.positions == eager.positions and lazy.edges == eager.edges
    assert lazy.groups == eager.groups and lazy.crossings == eager.crossings
    assert layout(_chain(LAZY_NODES + 500), previous=lazy) is lazy  # same structure


def test_replace_and_wrap_work_on_a_lazy_layout():
    g = _chain(LAZY_NODES + 500)
    lazy = layout(g)
    moved = dataclasses.replace(lazy, size=(1.0, 2.0))
    assert moved.size == (1.0, 2.0) and moved.positions == lazy.positions
    wrapped = wrap_layout(layout(g), 1.5, g)
    assert wrapped.bands > 1 and set(wrapped.positions) == set(g.nodes)


def test_small_or_ungrouped_graphs_are_laid_out_at_once():
    assert "positions" in vars(layout(_chain(100)))
    assert "positions" in vars(layout(_chain(LAZY_NODES + 500, grouped=False)))


def test_a_big_graph_drawn_folded_is_laid_out_on_first_read():
    """The window folds a big graph's repeated runs and draws the folded graph's own layout:
    told so (``drawn_folded``), ``layout`` leaves the whole graph's for when it is read."""
    g = _chain(LAZY_NODES + 500, grouped=False)
    lazy = layout(g, drawn_folded=True)
    assert "positions" not in vars(lazy)
    eager = _layout(_Inputs(g, lazy.signature))
    assert lazy.positions == eager.positions and lazy.edges == eager.edges
    assert "positions" in vars(layout(_chain(100), drawn_folded=True))  # small: at once
