"""The layered layout: edges downwards, honest crossing counts, no overlaps, stable pictures."""

from __future__ import annotations

import itertools

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as T
from engine.graph import (
    DUMMY_WIDTH,
    LAYER_SPACING,
    NODE_GAP,
    NODE_HEIGHT,
    NODE_WIDTH,
    build_graph,
    fold,
    layout,
)
from engine.graph.synthetic import trace_like_dag, wide_random_dag
from tests.engine.graph.graph_cases import seed_demo, training_step


def drawn_crossings(lay) -> int:
    """Crossings counted from the drawing itself: segments of the polylines between two layers."""
    by_band: dict[float, list] = {}
    for line in lay.edges.values():
        for (x0, y0), (x1, y1) in zip(line, line[1:]):
            by_band.setdefault(min(y0, y1), []).append((x0, x1) if y0 < y1 else (x1, x0))
    total = 0
    for segments in by_band.values():
        for (a0, a1), (b0, b1) in itertools.combinations(segments, 2):
            if (a0 - b0) * (a1 - b1) < 0:
                total += 1
    return total


def assert_well_drawn(graph, lay):
    assert set(lay.positions) == set(graph.nodes)
    for u, v in graph.edges:
        if u != v:
            assert lay.positions[u][1] < lay.positions[v][1], (u, v)  # inputs above outputs
        line = lay.edges[(u, v)]
        assert line[0] == lay.positions[u] and line[-1] == lay.positions[v]
        ys = [y for _, y in line]
        assert all(abs(abs(b - a) - LAYER_SPACING) < 1e-9 for a, b in zip(ys, ys[1:]))
    for row in lay.layers:
        xs = [lay.positions[n][0] for n in row]
        assert all(b - a >= NODE_WIDTH + NODE_GAP - 1e-6 for a, b in zip(xs, xs[1:]))
        assert len({lay.positions[n][1] for n in row}) <= 1
    assert sum(len(row) for row in lay.layers) == graph.number_of_nodes()
    # Long edges pass between boxes, never through them.
    boxes_at: dict[float, list] = {}
    for x, y in lay.positions.values():
        boxes_at.setdefault(y, []).append(x)
    clearance = NODE_WIDTH / 2 + DUMMY_WIDTH / 2 + NODE_GAP - 1e-6
    for line in lay.edges.values():
        for x, y in line[1:-1]:
            assert all(abs(x - bx) >= clearance for bx in boxes_at.get(y, ()))
    for node_id, (layer, k) in lay.order.items():
        assert lay.layers[layer][k] == node_id
    assert lay.crossings == drawn_crossings(lay)
    assert lay.crossings <= lay.initial_crossings
    # Everything lies inside (0, 0) .. size.
    xs = [x for line in lay.edges.values() for x, _ in line]
    xs += [x for x, _ in lay.positions.values()]
    if lay.positions:
        width, height = lay.size
        assert min(x for x, _ in lay.positions.values()) >= NODE_WIDTH / 2 - 1e-6
        assert min(xs) >= DUMMY_WIDTH / 2 - 1e-6 and max(xs) <= width + 1e-6
        assert max(y for _, y in lay.positions.values()) + NODE_HEIGHT / 2 == height


def test_seed_demo_reads_top_down_with_the_chain_straight():
    g = build_graph(seed_demo())
    lay = layout(g)
    assert_well_drawn(g, lay)
    assert lay.layers[0] == ["t:t1"]
    assert lay.layers[-1] == ["t:z"]
    chain = ["t:t1", "t:t1/AccumulateGrad", "t2/grad_fn:AddBackward0/0:MulBackward0",
             "t2/grad_fn:AddBackward0"]
    assert len({lay.positions[n][0] for n in chain}) == 1
    assert lay.crossings == 0


def test_a_leaf_used_late_sits_just_above_its_consumer():
    x = T.ones(2, requires_grad=True)
    h = x
    for _ in range(6):
        h = h.sin()
    w = T.ones(2, requires_grad=True)
    y = (h * w).sum()
    g = build_graph({"x": x, "w": w, "y": y})
    lay = layout(g)
    consumer = next(iter(g.successors("t:w/AccumulateGrad")))
    layer = {n: li for li, row in enumerate(lay.layers) for n in row}
    assert layer["t:w/AccumulateGrad"] == layer[consumer] - 1
    assert layer["t:w"] == layer[consumer] - 2
    assert layer["t:x"] == 0


def test_long_edges_run_straight_through_the_layers_they_cross():
    g = nx.DiGraph()
    nx.add_path(g, ["a", "b", "c", "d", "e", "f"])
    g.add_edge("a", "f")
    g.add_edge("b", "e")
    lay = layout(g)
    assert_well_drawn(g, lay)
    for edge in (("a", "f"), ("b", "e")):
        inner = lay.edges[edge][1:-1]
        assert len(inner) >= 2
        assert len({x for x, _ in inner}) == 1


def test_synthetic_traces_are_well_drawn_and_have_fewer_crossings_than_creation_order():
    for g in (trace_like_dag(400, seed=3), wide_random_dag(150, seed=1)):
        lay = layout(g)
        assert_well_drawn(g, lay)
        assert lay.crossings < lay.initial_crossings


def test_same_graph_same_layout():
    g = trace_like_dag(300, seed=7)
    first, second = layout(g), layout(g.copy())
    assert first.positions == second.positions
    assert first.layers == second.layers and first.crossings == second.crossings


def test_values_only_change_keeps_the_previous_layout():
    ns1, steps1 = training_step(0)
    ns2, steps2 = training_step(1)
    first = layout(build_graph(ns1, steps1))
    again = layout(build_graph(ns2, steps2), previous=first)
    assert again is first
    changed = build_graph(ns2, steps2)
    changed.add_edge("t:x", "t:target")
    assert layout(changed, previous=first) is not first


def test_groups_enclose_their_nodes_and_nested_groups():
    g = trace_like_dag(60, seed=2)
    members = list(g.nodes)[10:20]
    for n in members[:5]:
        g.nodes[n]["group"] = "model.fc1"
    for n in members[5:]:
        g.nodes[n]["group"] = "model.fc2"
    lay = layout(g)
    assert set(lay.groups) == {"model", "model.fc1", "model.fc2"}
    for name, nodes in (("model.fc1", members[:5]), ("model.fc2", members[5:]),
                        ("model", members)):
        x0, y0, x1, y1 = lay.groups[name]
        for n in nodes:
            x, y = lay.positions[n]
            assert x0 <= x - NODE_WIDTH / 2 and x + NODE_WIDTH / 2 <= x1 and y0 < y < y1
    outer, inner = lay.groups["model"], lay.groups["model.fc1"]
    assert outer[0] <= inner[0] and outer[2] >= inner[2]


def test_a_folded_group_lays_out_as_one_node():
    g = trace_like_dag(80, seed=4)
    members = list(g.nodes)[20:40]
    for n in members:
        g.nodes[n]["group"] = "net"
    folded = fold(g, "net")
    assert "group:net" in folded and not set(members) & set(folded.nodes)
    assert folded.nodes["group:net"]["members"] == members
    assert_well_drawn(folded, layout(folded))


def test_cycles_empty_and_isolated_nodes_do_not_break_it():
    cyclic = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    lay = layout(cyclic)
    assert set(lay.positions) == set("abcd")
    assert layout(nx.DiGraph()).positions == {}
    lonely = nx.DiGraph()
    lonely.add_nodes_from(["p", "q"])
    lay = layout(lonely)
    assert lay.layers == [["p", "q"]] and lay.crossings == 0


@st.composite
def dags(draw):
    n = draw(st.integers(1, 25))
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for v in range(1, n):
        for u in draw(st.sets(st.integers(0, v - 1), max_size=3)):
            g.add_edge(u, v)
    return g


@settings(max_examples=40, deadline=None)
@given(dags())
def test_random_dags_are_well_drawn(g):
    assert_well_drawn(g, layout(g))


def test_a_growing_graph_keeps_what_was_already_drawn_in_order():
    full = trace_like_dag(600, seed=5)
    ids = list(full.nodes)
    before = full.subgraph(ids[:550]).copy()
    first = layout(before)
    grown = layout(full, previous=first)  # a changed structure: laid out afresh
    assert_well_drawn(full, grown)
    moved = 0
    for row in grown.layers:
        old = [n for n in row if n in first.order]
        # Nodes that stayed in one layer keep their left-to-right order.
        by_layer: dict[int, list] = {}
        for n in old:
            by_layer.setdefault(first.order[n][0], []).append(first.order[n][1])
        for indices in by_layer.values():
            moved += sum(1 for a, b in zip(indices, indices[1:]) if a > b)
    assert moved <= 2


def test_module_groups_are_gathered_when_that_costs_no_crossing():
    g = nx.DiGraph()
    # Created interleaved: a1 b1 a2 b2, each feeding its own op below; two modules A and B.
    for name in ("a1", "b1", "a2", "b2"):
        g.add_node(name, group=name[0].upper())
    for name in ("a1", "b1", "a2", "b2"):
        g.add_node(name + "_op", group=name[0].upper())
        g.add_edge(name, name + "_op")
    lay = layout(g)
    assert_well_drawn(g, lay)
    assert lay.layers == [["a1", "a2", "b1", "b2"], ["a1_op", "a2_op", "b1_op", "b2_op"]]
    ax0, _, ax1, _ = lay.groups["A"]
    bx0, _, bx1, _ = lay.groups["B"]
    assert ax1 < bx0  # the two boxes do not overlap
