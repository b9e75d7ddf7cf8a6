"""Grad labels on edges (issue 16): no two overlap, none covers a node, each sits by its edge."""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path

import pytest

from engine import files as F
from engine.graph import NODE_HEIGHT, NODE_WIDTH, build_graph, layout
from engine.graph.labels import GAP, place_labels

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.gstep"))
LABEL_HEIGHT = 18.0


def meet(a, b) -> bool:
    """Open boxes intersect (touching is not overlapping)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def node_boxes(positions, width=NODE_WIDTH, height=NODE_HEIGHT):
    return [(x - width / 2, y - height / 2, x + width / 2, y + height / 2)
            for x, y in positions.values()]


def assert_clear(nodes, places) -> None:
    boxes = [p.box for p in places]
    for i, a in enumerate(boxes):
        for j, node in enumerate(nodes):
            assert not meet(a, node), f"label {i} {a} covers node {j} {node}"
        for k in range(i):
            assert not meet(a, boxes[k]), f"labels {k} {boxes[k]} and {i} {a} overlap"


def distance_to_polyline(point, points) -> float:
    px, py = point
    best = math.inf
    for (ax, ay), (bx, by) in zip(points, points[1:]):
        dx, dy = bx - ax, by - ay
        f = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy)
                                                   / (dx * dx + dy * dy)))
        best = min(best, math.hypot(px - ax - f * dx, py - ay - f * dy))
    return best


def box_gap(box, point) -> float:
    """How far ``point`` is from ``box`` (0 inside)."""
    x, y = point
    dx = max(box[0] - x, 0.0, x - box[2])
    dy = max(box[1] - y, 0.0, y - box[3])
    return math.hypot(dx, dy)


def widths(n: int, seed: int = 0) -> list[float]:
    """Label widths as the view's texts make them: "◂ grad 1" to a row of four numbers."""
    rng = random.Random(seed)
    return [rng.choice((64.0, 96.0, 128.0, 176.0, 240.0)) for _ in range(n)]


def example_layout(path):
    """An example run to its end (or to its error) by the engine: its graph's layout."""
    from engine.script import ScriptError, run

    gf = F.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            namespace = run(gf.script)
        except ScriptError:
            pytest.skip("the example fails before its end (its graph is the error's)")
    graph = build_graph(namespace)
    if graph.number_of_edges() == 0:
        pytest.skip("no edges")
    return layout(graph)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_labels_are_clear_of_each_other_and_of_nodes(path):
    lay = example_layout(path)
    nodes = node_boxes(lay.positions)
    lines = list(lay.edges.values())
    places = place_labels(nodes, [(line, (w, LABEL_HEIGHT))
                                  for line, w in zip(lines, widths(len(lines)))])
    assert len(places) == len(lines)
    assert_clear(nodes, places)
    # Most labels find room right beside their own edge.
    beside = [p for p in places if p.beside]
    assert len(beside) >= 0.7 * len(places)
    for place, line in zip(places, lines):
        if place.beside:
            assert distance_to_polyline(place.anchor, line) < 1e-6
            # Hung from its anchor: no further from it than the gap, and a little more where
            # the box slides to stand level with a nearly straight line.
            w, h = place.box[2] - place.box[0], place.box[3] - place.box[1]
            assert box_gap(place.box, place.anchor) <= GAP + (w + h) / 16 + 1e-6


def crossing_graph(seed: int, layers: int = 4, per_layer: int = 7):
    """Layers of nodes, every node wired to most of the next layer's: edges cross everywhere,
    and most near the nodes they meet at (the MLP's parameter fans, many times over)."""
    rng = random.Random(seed)
    positions, lines = {}, []
    for layer in range(layers):
        for i in range(per_layer):
            positions[(layer, i)] = (i * (NODE_WIDTH + 30.0) + rng.uniform(-20, 20),
                                     layer * 80.0)
    for layer in range(layers - 1):
        for i in range(per_layer):
            for j in range(per_layer):
                if rng.random() < 0.7:
                    (x0, y0), (x1, y1) = positions[(layer, i)], positions[(layer + 1, j)]
                    lines.append([(x0, y0 + NODE_HEIGHT / 2), (x1, y1 - NODE_HEIGHT / 2)])
    return positions, lines


@pytest.mark.parametrize("seed", range(5))
def test_a_crossing_heavy_graphs_labels_never_overlap(seed):
    positions, lines = crossing_graph(seed)
    nodes = node_boxes(positions)
    places = place_labels(nodes, [(line, (w, LABEL_HEIGHT))
                                  for line, w in zip(lines, widths(len(lines), seed))])
    assert len(places) > 80
    assert_clear(nodes, places)


def test_a_fan_into_one_node_gets_its_labels_apart():
    # Twelve parameters' edges all end at one op: their middles are close together.
    target = (0.0, 0.0)
    lines = [[(dx * 40.0, -90.0), (target[0], target[1] - NODE_HEIGHT / 2)]
             for dx in range(-6, 6)]
    nodes = node_boxes({"op": target}) + [(x - 20, y - 20, x + 20, y) for (x, y), _ in lines]
    places = place_labels(nodes, [(line, (96.0, LABEL_HEIGHT)) for line in lines])
    assert_clear(nodes, places)


def test_a_lone_edge_keeps_its_label_beside_its_middle():
    line = [(0.0, 0.0), (0.0, 100.0)]
    (place,) = place_labels([], [(line, (80.0, LABEL_HEIGHT))])
    assert place.beside and place.anchor == (0.0, 50.0)
    left, top, right, bottom = place.box
    assert (top + bottom) / 2 == pytest.approx(50.0)
    assert left == pytest.approx(GAP)  # right of the line, the side a straight edge takes
    assert right - left == 80.0 and bottom - top == LABEL_HEIGHT


def test_an_edge_leaning_left_puts_its_label_on_the_left():
    (place,) = place_labels([], [([(0.0, 0.0), (-60.0, 100.0)], (80.0, LABEL_HEIGHT))])
    assert place.box[2] < place.anchor[0]


def test_a_slanted_edge_never_runs_through_its_own_label():
    line = [(0.0, 0.0), (300.0, 100.0)]
    (place,) = place_labels([], [(line, (200.0, LABEL_HEIGHT))])
    left, top, right, bottom = place.box
    # All four corners on one side of the line.
    sides = {math.copysign(1, 300.0 * (y - 0.0) - 100.0 * (x - 0.0))
             for x, y in ((left, top), (right, top), (left, bottom), (right, bottom))}
    assert len(sides) == 1


def test_labels_placed_before_are_kept_clear_of():
    line = [(0.0, 0.0), (0.0, 100.0)]
    (first,) = place_labels([], [(line, (80.0, LABEL_HEIGHT))])
    (second,) = place_labels([], [(line, (80.0, LABEL_HEIGHT))], taken=[first.box])
    assert not meet(first.box, second.box)


def test_a_label_prefers_a_spot_that_hides_no_other_edge():
    # A second edge runs just right of the first one's middle: its label goes left instead.
    line = [(0.0, 0.0), (0.0, 100.0)]
    other = [(40.0, 0.0), (40.0, 100.0)]
    (place,) = place_labels([], [(line, (80.0, LABEL_HEIGHT))], lines=[other])
    assert place.box[2] <= 0.0


def test_no_room_beside_the_edge_moves_the_label_away_with_a_leader():
    # The edge runs between two nodes that leave no room beside it anywhere.
    line = [(0.0, 0.0), (0.0, 40.0)]
    nodes = [(-300.0, -10.0, -2.0, 50.0), (2.0, -10.0, 300.0, 50.0)]
    (place,) = place_labels(nodes, [(line, (80.0, LABEL_HEIGHT))])
    assert not place.beside
    assert_clear(nodes, [place])
