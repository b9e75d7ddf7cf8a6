"""A big graph's items are made as they come into sight (issue 17)."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from app.graph_table import LazyItems, SceneIndex


def test_lazy_items_are_made_once_on_first_read_and_only_for_known_ids():
    made = []
    items = LazyItems(lambda key: made.append(key) or f"item {key}")
    items.reset(["a", "b", "c"])
    assert len(items) == 3 and "b" in items and list(items) == ["a", "b", "c"]
    assert made == []  # nothing is made by asking what is there
    assert items["b"] == "item b" and items["b"] == "item b"
    assert made == ["b"] and set(items.made) == {"b"}
    assert items.get("z") is None and "z" not in items
    with pytest.raises(KeyError):
        items["z"]
    items.reset(["x"])
    assert not items.made and list(items) == ["x"]


def random_scene(seed: int, n: int = 300):
    rng = random.Random(seed)
    positions = {f"n{i}": (rng.uniform(0, 5000), rng.uniform(0, 3000)) for i in range(n)}
    halves = {k: rng.choice(((84.0, 29.0), (75.0, 15.0))) for k in positions}
    ids = list(positions)
    edges = [(rng.choice(ids), rng.choice(ids)) for _ in range(2 * n)]
    edges = list(dict.fromkeys((u, v) for u, v in edges if u != v))
    bends = {e: [(rng.uniform(0, 5000), rng.uniform(0, 3000))] for e in edges[::7]}
    return positions, halves, edges, bends


@pytest.mark.parametrize("seed", range(3))
def test_the_index_finds_exactly_the_nodes_and_edges_meeting_a_rectangle(seed):
    positions, halves, edges, bends = random_scene(seed)
    index = SceneIndex.build(positions, halves, edges, bends)
    rng = random.Random(seed + 10)
    for _ in range(20):
        left, top = rng.uniform(-500, 5000), rng.uniform(-500, 3000)
        right, bottom = left + rng.uniform(10, 2000), top + rng.uniform(10, 1500)
        want_nodes = {k for k, (x, y) in positions.items()
                      if x + halves[k][0] >= left and x - halves[k][0] <= right
                      and y + halves[k][1] >= top and y - halves[k][1] <= bottom}
        assert set(index.nodes_in(left, top, right, bottom)) == want_nodes
        assert len(index.node_boxes_in(left, top, right, bottom)) == len(want_nodes)
        want_edges = set()
        for u, v in edges:
            pts = np.array([positions[u], *bends.get((u, v), ()), positions[v]])
            (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
            if x1 >= left and x0 <= right and y1 >= top and y0 <= bottom:
                want_edges.add((u, v))
        assert set(index.edges_in(left, top, right, bottom)) == want_edges


def ladder_graph(n: int) -> nx.DiGraph:
    """``n`` ops, each fed by the two before it, no module groups: nothing folds it."""
    graph = nx.DiGraph()
    for i in range(n):
        graph.add_node(f"op{i}", kind="function", label="AddBackward0",
                       node_name="AddBackward0", executed=False)
        for back in (1, 2):
            if i >= back:
                graph.add_edge(f"op{i - back}", f"op{i}", grad=np.ones(1, np.float32), count=1)
    return graph


def test_a_big_graph_makes_only_the_items_in_sight(qtbot):
    from app.graph_view import LAZY_NODES, GraphView
    from engine.graph import layout

    view = GraphView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    graph = ladder_graph(LAZY_NODES + 500)
    view.show_graph(graph, layout(graph))
    assert len(view.nodes) == graph.number_of_nodes()
    assert len(view.nodes.made) < len(view.nodes) / 10  # fitted: the far picture stands in
    # Zoomed in on one node: the items around it are made, not the others.
    target = next(iter(view._positions))
    view.canvas.resetTransform()
    view.canvas.centerOn(*view._positions[target])
    qtbot.waitUntil(lambda: target in view.nodes.made)
    assert len(view.nodes.made) < len(view.nodes) / 4
    seen = view.canvas.mapToScene(view.canvas.viewport().rect()).boundingRect()
    for node_id in view._index.nodes_in(seen.left(), seen.top(), seen.right(), seen.bottom()):
        assert node_id in view.nodes.made
    # A node out of sight is made when asked for (selecting it centres it).
    far_away = list(view._positions)[-1]
    assert far_away not in view.nodes.made
    assert view.select(far_away) and view.selected_id() == far_away
