"""Putting the edges' grad labels where ``engine.graph.labels`` says (issue 16).

The view only measures: each label's text in the label font, each node's box; the engine's
placement decides where every label goes. Widths are rounded up to steps, and labels already
placed keep their place while their text still fits, so a backward step that changes numbers,
or makes one more edge carry a gradient, moves no label that is already on screen.
"""

from __future__ import annotations

import math

from PySide6.QtGui import QFont, QFontMetricsF

from engine.graph.labels import place_labels

from .graph_items import LABEL_HEIGHT, LABEL_POINT_SIZE

WIDTH_STEP = 16.0  # label widths are reserved in these steps: a digit more keeps the place


def label_font(base: QFont) -> QFont:
    font = QFont(base)
    font.setPointSizeF(LABEL_POINT_SIZE)
    font.setBold(False)
    return font


def reserved_width(metrics: QFontMetricsF, text: str) -> float:
    return math.ceil((metrics.horizontalAdvance(text) + 8) / WIDTH_STEP) * WIDTH_STEP


def place_edge_labels(nodes, edges, font: QFont, *, fresh: bool) -> int:
    """Place the labels of the ``edges`` (EdgeItems) that carry a gradient, around the
    ``nodes`` (boxes: left, top, right, bottom). ``fresh``: forget every earlier place (the
    drawing was rebuilt); else only labels without a place, or grown past theirs, are placed,
    around the others. Returns how many were placed."""
    metrics = QFontMetricsF(font)
    kept, todo, widths, lines = [], [], [], []
    for edge in edges:
        if not edge.carried:
            if edge.label_place is not None:
                edge.set_label_place(None)
            lines.append(edge.points)
            continue
        width = reserved_width(metrics, edge.label_text())
        place = edge.label_place
        if fresh or place is None or place.box[2] - place.box[0] < width:
            todo.append(edge)
            widths.append(width)
        else:
            kept.append(place.box)
            lines.append(edge.points)
    if not todo:
        return 0
    places = place_labels(nodes, [(e.points, (w, LABEL_HEIGHT)) for e, w in zip(todo, widths)],
                          taken=kept, lines=lines)
    for edge, place in zip(todo, places):
        edge.set_label_place(place)
    return len(todo)
