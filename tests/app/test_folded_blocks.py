"""A deep network written without modules opens with its repeated layers folded into one box
(issue 16); the user opens it with a double-click, or by finding a node inside it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.app.window_support import trigger, wait_idle

LAYERS = 40
# 40 layers of 3 ops, each with its own weight and bias: past the size where repeats fold.
DEEP_MLP = f"""import torch
torch.manual_seed(0)
W = [torch.randn(2, 2, requires_grad=True) for _ in range({LAYERS})]
b = [torch.zeros(2, requires_grad=True) for _ in range({LAYERS})]
h = torch.randn(3, 2)
for i in range({LAYERS}):
    h = torch.relu(h @ W[i] + b[i])
loss = h.sum()
loss.backward()
"""
LABEL = f"×{LAYERS} MmBackward0 → AddBackward0 → ReluBackward0"


@pytest.fixture
def window(make_window, qtbot, tmp_path):
    window = make_window(open_demo=False)
    window.resize(1440, 900)
    window.ensure_panels()
    path = tmp_path / "deep_mlp.py"
    path.write_text(DEEP_MLP)
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    return window


def block_box(view) -> str:
    boxes = [n for n, a in view.shown_graph.nodes(data=True) if a.get("kind") == "group"]
    assert len(boxes) == 1
    return boxes[0]


def test_the_layers_show_as_one_box_and_a_double_click_opens_it(qtbot, window):
    view = window.graph_view
    box = block_box(view)
    attrs = view.nodes[box].attrs
    assert attrs["label"] == LABEL
    members = attrs["members"]
    assert "t:W[7]" in members and not any(m in view.nodes for m in members)
    # Drawn in the canvas, where the user double-clicks it.
    view.canvas.centerOn(view.nodes[box])
    point = view.canvas.mapFromScene(view.nodes[box].sceneBoundingRect().center())
    qtbot.mouseDClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: box not in view.nodes)
    assert all(m in view.nodes for m in members)
    assert not any(a.get("kind") == "group" for _, a in view.shown_graph.nodes(data=True))
    # Stepping on keeps it open: the user opened it.
    trigger(qtbot, window, "debug.restart", timeout=60000)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    assert "t:W[7]" in view.nodes


def test_search_finds_a_weight_inside_the_box_and_opens_it(qtbot, window):
    view = window.graph_view
    box = block_box(view)
    qtbot.keyClicks(view.search, "W[7]")
    assert view.search_status.text() == "1 found"
    assert view.nodes[box].search_hit  # the box that holds it is marked
    qtbot.keyClick(view.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.selected_id() == "t:W[7]")
    assert box not in view.nodes and "t:W[7]" in view.nodes


def test_fold_and_unfold_from_the_view_menu(qtbot, window):
    view = window.graph_view
    box = block_box(view)
    window.actions_by_id["view.unfold_all"].trigger()
    qtbot.waitUntil(lambda: box not in view.nodes)
    assert "t:W[7]" in view.nodes
    window.actions_by_id["view.fold_all"].trigger()
    qtbot.waitUntil(lambda: box in view.nodes)
    assert view.nodes[box].attrs["label"] == LABEL and "t:W[7]" not in view.nodes


def test_the_inspector_says_what_the_box_repeats(qtbot, window):
    view = window.graph_view
    box = block_box(view)
    item = view.nodes[box]
    view.canvas.centerOn(item)
    point = view.canvas.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: "repeats" in window.inspector.facts)
    assert window.inspector.facts["repeats"] == (
        f"{LAYERS} × MmBackward0 → AddBackward0 → ReluBackward0")
    assert "module" not in window.inspector.facts
