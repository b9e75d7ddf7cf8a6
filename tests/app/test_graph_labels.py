"""Grad labels drawn where the engine placed them: apart, off the nodes (issue 16)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF

from app.graph_items import LOD_DETAIL
from tests.app.window_support import trigger, wait_idle

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_11 = ROOT / "resources" / "examples" / "11_xor_mlp_adam.gstep"


@pytest.fixture
def window(make_window, qtbot):
    window = make_window(open_demo=False)
    window.resize(1440, 900)
    return window


def drawn_labels(view) -> list[QRectF]:
    return [edge.label_rect(0.0) for edge in view.edges.values() if edge.carried]


def node_rects(view) -> list[QRectF]:
    out = []
    for item in view.nodes.values():
        (x, y), (hw, hh) = item.xy, item.half
        out.append(QRectF(x - hw, y - hh, 2 * hw, 2 * hh))
    return out


def test_the_mlps_grad_labels_overlap_no_label_and_no_node(qtbot, window):
    assert window.open_example(str(EXAMPLE_11))
    wait_idle(qtbot, window)
    while window.controller.snapshot.status.name != "FINISHED":
        trigger(qtbot, window, "debug.continue", timeout=60000)
    window.actions_by_id["view.unfold_all"].trigger()
    view = window.graph_view
    view.canvas.resetTransform()  # 100 %: the labels are drawn
    view.canvas.viewport().update()
    qtbot.waitUntil(lambda: all(e.label_place is not None
                                for e in view.edges.values() if e.carried))
    labels = drawn_labels(view)
    assert len(labels) >= 10  # every edge carried a gradient in the last backward
    nodes = node_rects(view)
    for i, label in enumerate(labels):
        assert not any(label.intersects(node) for node in nodes)
        assert not any(label.intersects(other) for other in labels[:i])


def test_labels_are_placed_only_once_readable(qtbot, window, tmp_path):
    path = tmp_path / "chain.py"
    path.write_text("import torch\nw = torch.ones(2, requires_grad=True)\nx = w\n"
                    "for i in range(60):\n    x = x * 1.01\nx.sum().backward()\n")
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    view = window.graph_view
    window.actions_by_id["view.unfold_all"].trigger()
    view.canvas.fit_all()
    carried = [e for e in view.edges.values() if e.carried]
    assert carried
    assert view.canvas.zoom() < LOD_DETAIL  # 120 boxes at fit: too small to read
    assert all(e.label_place is None for e in carried)
    view.canvas.zoom_by(LOD_DETAIL / view.canvas.zoom() * 1.01)
    assert all(e.label_place is not None for e in carried)
