"""Big graphs at "fit": long chains wrap into a snake that fills the view, repeated ops fold."""

from __future__ import annotations

import networkx as nx

import engine as T
from engine.graph import build_graph, layout, wrap_layout
from engine.graph.fold import fold_runs, repeated_runs
from engine.graph.layout import LAYER_SPACING, NODE_WIDTH


def chain_graph(ops: int = 2000):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    x = w
    for _ in range(ops):
        x = x * 1.001
    return build_graph({"w": w, "x": x})


def test_a_2000_op_chain_wraps_to_the_views_aspect_ratio():
    g = chain_graph()
    plain = layout(g)
    assert plain.size[1] / plain.size[0] > 100  # one column: the diagonal/hairline of before
    for view_aspect in (1.6, 1.0, 0.6):
        lay = wrap_layout(plain, view_aspect, g)
        width, height = lay.size
        assert lay.bands > 1
        assert view_aspect / 3 <= width / height <= view_aspect * 3
        xs = [x for x, _ in lay.positions.values()]
        ys = [y for _, y in lay.positions.values()]
        assert min(xs) >= NODE_WIDTH / 2 - 1e-6 and max(xs) <= width + 1e-6
        assert max(ys) <= height
        # Not a diagonal: each band is a straight column, every node in a band at one x.
        assert len({round(x) for x in xs}) == lay.bands
        # Snake: consecutive ops are one layer apart in a band or side by side at a turn.
        for u, v in g.edges:
            (x0, y0), (x1, y1) = lay.positions[u], lay.positions[v]
            assert abs(y1 - y0) == LAYER_SPACING or (y0 == y1 and x1 > x0)
        assert lay.edges[next(iter(g.edges))][0] == lay.positions[next(iter(g.edges))[0]]


def test_wrapping_is_deterministic_and_leaves_short_or_wide_drawings_alone():
    g = chain_graph(300)
    plain = layout(g)
    assert wrap_layout(plain, 1.3, g).positions == wrap_layout(layout(g), 1.3, g).positions
    short = nx.DiGraph()
    nx.add_path(short, "abcde")
    lay = layout(short)
    assert wrap_layout(lay, 1.3) is lay
    wide = nx.DiGraph([(f"s{i}", "t") for i in range(40)])
    lay = layout(wide)
    assert wrap_layout(lay, 1.3) is lay


def test_long_edges_follow_the_snake_through_their_bands():
    g = nx.DiGraph()
    nx.add_path(g, [f"n{i}" for i in range(60)])
    g.add_edge("n0", "n59")  # one edge over the whole chain
    plain = layout(g)
    lay = wrap_layout(plain, 1.5, g)
    line = lay.edges[("n0", "n59")]
    assert line[0] == lay.positions["n0"] and line[-1] == lay.positions["n59"]
    assert len(line) == len(plain.edges[("n0", "n59")])


def test_repeated_ops_fold_into_one_counted_box():
    g = chain_graph()
    runs = repeated_runs(g, 4)
    assert len(runs) == 1 and len(runs[0]) == 2000
    folded = fold_runs(g, runs)
    assert folded.number_of_nodes() < 10
    box = folded.nodes[f"run:{runs[0][0]}"]
    assert box["kind"] == "group" and box["label"] == "MulBackward0 ×2000"
    assert box["members"] == runs[0]
    assert nx.is_directed_acyclic_graph(folded)
    assert wrap_layout(layout(folded), 1.3, folded).bands == 1


def test_a_deep_chain_fed_by_parameters_stays_straight():
    T.manual_seed(0)
    h = T.randn(4)
    names = {"x": h}
    for k in range(12):
        w = T.randn(4, 4, requires_grad=True)
        h = (w @ h).tanh()
        names[f"w{k}"] = w
    names["loss"] = h.sum()
    g = build_graph(names)
    lay = layout(g)
    main = [n for n, a in g.nodes(data=True) if a.get("label") == "TanhBackward0"]
    assert len({lay.positions[n][0] for n in main}) == 1
