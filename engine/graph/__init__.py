"""The graph model and its layout, without Qt: what the window draws, computed here.

``build_graph(namespace, last_backward_steps=(), previous=None)`` turns the live engine state into
a networkx DiGraph with stable ids; ``layout(graph, previous=None)`` places it in layers like
Graphviz's ``dot``; ``fold(graph, group)`` folds a module group into one node; ``to_dot(graph)``
exports Graphviz DOT.
"""

from __future__ import annotations

from .dot import to_dot
from .fold import fold
from .layout import DUMMY_WIDTH, LAYER_SPACING, NODE_GAP, NODE_HEIGHT, NODE_WIDTH, Layout, layout
from .model import build_graph
from .wrap import wrap_layout

__all__ = [
    "build_graph", "layout", "Layout", "fold", "to_dot", "wrap_layout",
    "NODE_WIDTH", "NODE_HEIGHT", "LAYER_SPACING", "NODE_GAP", "DUMMY_WIDTH",
]
