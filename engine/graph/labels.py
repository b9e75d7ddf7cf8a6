"""Where the edges' gradient labels go: beside their own edge, never on another label or a node.

Pure geometry in the drawing's units (the view's scene): a node is a box, an edge a polyline,
a label a box of a known size. ``place_labels`` is greedy, in the order given: each label takes
the first free spot among candidates along its edge (its middle first, on the side the edge
leans to, then nearer its ends), preferring spots that cover no other edge's line; failing
those, the nearest free spot around its middle, on rings of growing size, and the drawing
links it to its edge with a leader. What is placed goes into a grid of buckets, so a test
looks at a few neighbours, not at every label.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # left, top, right, bottom

GAP = 5.0  # from an edge's line to its label's nearest corner
PAD = 3.0  # kept free around every node and label
_FRACTIONS = (0.5, 0.38, 0.62, 0.26, 0.74, 0.15, 0.85)  # along an edge, middle first
_CELL = 96.0  # the buckets' size: a little more than a short label's width
_HANG = 4.0  # how soon, as a line tilts, a label hangs from its corner rather than its side
_MAX_RINGS = 400  # rings tried around a label's middle before it goes beside everything


@dataclass(frozen=True)
class LabelPlace:
    """A label's box, and the point of its edge it belongs to; ``beside`` when the box touches
    its edge there (else the drawing joins them with a leader)."""

    box: Box
    anchor: Point
    beside: bool


def place_labels(nodes: Sequence[Box], edges: Sequence[tuple[Sequence[Point], tuple]], *,
                 taken: Sequence[Box] = (), lines: Sequence[Sequence[Point]] = (),
                 ) -> list[LabelPlace]:
    """One place per edge of ``edges`` ((polyline, (width, height)), in drawing order), such
    that no two label boxes intersect and none intersects a box of ``nodes`` or of ``taken``
    (labels placed before, which stay where they are). ``lines``: the polylines of other
    edges, which labels avoid covering where they can."""
    free = BoxSpace()
    for box in nodes:
        free.add(_grown(box, PAD), "node")
    for box in taken:
        free.add(_grown(box, PAD), "label")
    crossing = BoxSpace()
    for index, (points, _size) in enumerate(edges):
        for a, b in zip(points, points[1:]):
            crossing.add_segment(a, b, index)
    for points in lines:
        for a, b in zip(points, points[1:]):
            crossing.add_segment(a, b, -1)
    placed = []
    for index, (points, (width, height)) in enumerate(edges):
        place = _place_one(points, float(width), float(height), index, free, crossing)
        free.add(_grown(place.box, PAD), "label")
        placed.append(place)
    return placed


def _place_one(points, width, height, index, free, lines) -> LabelPlace:
    candidates = list(_beside(points, width, height))
    # First a spot that hides no other edge, then any free spot along the edge.
    for box, anchor in candidates:
        if free.is_free(box) and not lines.crosses(box, index):
            return LabelPlace(box, anchor, True)
    for box, anchor in candidates:
        if free.is_free(box):
            return LabelPlace(box, anchor, True)
    anchor = _point_at(points, 0.5)[0]
    start = candidates[0][0] if candidates else _centred(anchor, width, height)
    return LabelPlace(_nearest_free(start, width, height, free), anchor, False)


def _beside(points, width, height):
    """Boxes touching the edge at points along it, each on the side of the line it is on,
    the side the edge leans to first (two labels of a fan-out then go apart)."""
    if len(points) < 2:
        if points:
            yield _centred(points[0], width, height), points[0]
        return
    lean = points[-1][0] - points[0][0]
    hw, hh = width / 2, height / 2
    for t in _FRACTIONS:
        (px, py), (dx, dy) = _point_at(points, t)
        length = math.hypot(dx, dy)
        if length == 0:
            yield _centred((px, py), width, height), (px, py)
            continue
        nx, ny = dy / length, -dx / length  # a normal; -n is the other side
        if nx < 0 or (nx == 0 and ny > 0):
            nx, ny = -nx, -ny  # n points right (or up, on a horizontal line)
        sides = ((nx, ny), (-nx, -ny)) if lean >= -1 else ((-nx, -ny), (nx, ny))
        for sx, sy in sides:
            yield _hung(px, py, sx, sy, hw, hh), (px, py)


def _hung(px, py, nx, ny, hw, hh) -> Box:
    """The box hung from the point (px, py) of a line, on the side of its unit normal (nx, ny):
    its corner nearest the line GAP from the point, the box reaching away from the line in x
    and in y. Along an almost vertical (horizontal) line the box slides to centre itself
    level with the point, and stands off a little more, so that it never reaches the line."""
    fx = max(-1.0, min(1.0, _HANG * nx))
    fy = max(-1.0, min(1.0, _HANG * ny))
    reach = GAP + hw * abs(nx) * (1 - abs(fx)) + hh * abs(ny) * (1 - abs(fy))
    return _centred((px + nx * reach + hw * fx, py + ny * reach + hh * fy), 2 * hw, 2 * hh)


def _point_at(points, t: float) -> tuple[Point, Point]:
    """The point at fraction ``t`` of the polyline's length, and its segment's direction."""
    lengths = [math.hypot(bx - ax, by - ay) for (ax, ay), (bx, by) in zip(points, points[1:])]
    goal = t * sum(lengths)
    for (ax, ay), (bx, by), length in zip(points, points[1:], lengths):
        if goal <= length and length > 0:
            f = goal / length
            return (ax + f * (bx - ax), ay + f * (by - ay)), (bx - ax, by - ay)
        goal -= length
    (ax, ay), (bx, by) = points[-2], points[-1]
    return (bx, by), (bx - ax, by - ay)


def _nearest_free(start: Box, width, height, free) -> Box:
    """The free box nearest ``start`` on a grid of half-label steps around it."""
    step_x, step_y = width / 2 + PAD, height + PAD
    x0, y0 = start[0], start[1]
    for ring in range(1, _MAX_RINGS):
        spots = [(i, j) for i in range(-ring, ring + 1) for j in (-ring, ring)]
        spots += [(i, j) for i in (-ring, ring) for j in range(1 - ring, ring)]
        spots.sort(key=lambda s: (s[0] * step_x) ** 2 + (s[1] * step_y) ** 2)
        for i, j in spots:
            box = (x0 + i * step_x, y0 + j * step_y, x0 + i * step_x + width,
                   y0 + j * step_y + height)
            if free.is_free(box):
                return box
    # (Unreachable in practice:) below everything placed, where nothing can be.
    bottom = free.bottom + 2 * PAD
    return x0, bottom, x0 + width, bottom + height


def _centred(point: Point, width, height) -> Box:
    x, y = point
    return x - width / 2, y - height / 2, x + width / 2, y + height / 2


def _grown(box: Box, pad: float) -> Box:
    return box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad


def _meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _segment_meets(box: Box, a: Point, b: Point) -> bool:
    """Whether the segment a-b passes through the open box."""
    left, top, right, bottom = box
    (ax, ay), (bx, by) = a, b
    if max(ax, bx) <= left or min(ax, bx) >= right or max(ay, by) <= top or min(ay, by) >= bottom:
        return False
    # The box's corners on both sides of the line (or on it): the segment crosses the box.
    sides = [(bx - ax) * (y - ay) - (by - ay) * (x - ax)
             for x, y in ((left, top), (right, top), (left, bottom), (right, bottom))]
    return min(sides) < 0 < max(sides)


class BoxSpace:
    """Boxes (and line segments) in buckets of a grid: which ones a new box would meet."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list] = {}
        self.bottom = -math.inf

    @staticmethod
    def _cells(box: Box):
        for i in range(math.floor(box[0] / _CELL), math.floor(box[2] / _CELL) + 1):
            for j in range(math.floor(box[1] / _CELL), math.floor(box[3] / _CELL) + 1):
                yield i, j

    def add(self, box: Box, what=None) -> None:
        self.bottom = max(self.bottom, box[3])
        for cell in self._cells(box):
            self.cells.setdefault(cell, []).append((box, what))

    def add_segment(self, a: Point, b: Point, index: int) -> None:
        # Cut into pieces no longer than a bucket: a long diagonal then fills the buckets it
        # passes through, not every bucket of its bounding box.
        pieces = max(1, math.ceil(math.hypot(b[0] - a[0], b[1] - a[1]) / _CELL))
        for k in range(pieces):
            p = (a[0] + (b[0] - a[0]) * k / pieces, a[1] + (b[1] - a[1]) * k / pieces)
            q = (a[0] + (b[0] - a[0]) * (k + 1) / pieces, a[1] + (b[1] - a[1]) * (k + 1) / pieces)
            box = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
            for cell in self._cells(box):
                self.cells.setdefault(cell, []).append(((p, q), index))

    def is_free(self, box: Box) -> bool:
        cells = self.cells
        for cell in self._cells(box):
            for other, _what in cells.get(cell, ()):
                if _meet(box, other):
                    return False
        return True

    def crosses(self, box: Box, index: int) -> bool:
        """Whether a segment of an edge other than ``index`` passes through ``box``."""
        cells = self.cells
        for cell in self._cells(box):
            for (a, b), owner in cells.get(cell, ()):
                if owner != index and _segment_meets(box, a, b):
                    return True
        return False
