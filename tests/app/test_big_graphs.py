"""Big graphs at fit (issue 16): readable, the overview beside them, search by any spelling."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRectF

from app.graph_items import LOD_TEXT
from tests.app.window_support import trigger, wait_idle

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\nx = w\n"
         "for i in range(2000):\n    x = x * 1.001\nloss = x.sum()\nloss.backward()\n")
MLP = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(8, 8), nn.ReLU())])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
d = {'w': model[0].weight}
x = torch.randn(4, 8)
opt.zero_grad()
loss = (model(x) ** 2).mean()
loss.backward()
opt.step()
"""
LSTM_OUTPUTS = """import torch
torch.manual_seed(0)
cell = torch.nn.LSTMCell(4, 8)
head = torch.nn.Linear(8, 3)
x = torch.randn(30, 2, 4)
y = torch.randint(0, 3, (30, 2))
h, c = torch.zeros(2, 8), torch.zeros(2, 8)
outs = []
for t in range(30):
    h, c = cell(x[t], (h, c))
    outs.append(head(h))
loss = torch.nn.functional.cross_entropy(torch.stack(outs).reshape(-1, 3), y.reshape(-1))
loss.backward()
"""
EXAMPLE_13 = ROOT / "resources" / "examples" / "13_vanishing_gradients.gstep"


def run_script(qtbot, window, tmp_path, name: str, source: str) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    assert window.open_path(str(path))
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue", timeout=60000)


def fitted(window):
    view = window.graph_view
    window.actions_by_id["view.fit"].trigger()
    return view


def readable(view) -> bool:
    """The boxes' own text is drawn, or names are drawn over them."""
    return view.canvas.zoom() >= LOD_TEXT or bool(view.landmark_labels())


def overview_clear_of_nodes(view) -> bool:
    if not view.overview.isVisible():
        return True
    geometry = QRectF(view.overview.geometry())
    area = view.canvas.mapToScene(geometry.toRect()).boundingRect()
    return not any(area.intersects(item.sceneBoundingRect()) for item in view.nodes.values())


@pytest.fixture
def window(make_window, qtbot):
    window = make_window(open_demo=False)
    window.resize(1440, 900)
    window.ensure_panels()
    return window


def test_a_2000_op_chain_fits_folded_and_readable(qtbot, window, tmp_path):
    run_script(qtbot, window, tmp_path, "chain", CHAIN)
    view = fitted(window)
    assert view.graph.number_of_nodes() > 2000
    boxes = [a for _, a in view.shown_graph.nodes(data=True) if a.get("kind") == "group"]
    assert [b["label"] for b in boxes] == ["MulBackward0 ×2000"]
    assert readable(view) and overview_clear_of_nodes(view)
    # drawn folded, the whole graph's own layout (0.1 s at 10,000 nodes) was never made
    assert "positions" not in vars(window.controller.snapshot.layout)
    # Opened, the chain wraps into a snake that fills the view (not a hairline diagonal).
    view._double_clicked(next(n for n, a in view.shown_graph.nodes(data=True)
                              if a.get("kind") == "group"))
    view.canvas.fit_all()
    assert len(view.nodes) > 2000
    assert view._layout.bands > 1
    box = view.bounds
    vp = view.canvas.viewport().size()
    aspect = box.width() / box.height()
    view_aspect = vp.width() / vp.height()
    assert view_aspect / 3 <= aspect <= view_aspect * 3
    assert overview_clear_of_nodes(view)


def test_the_mlp_opens_with_its_layers_folded(qtbot, window, tmp_path):
    run_script(qtbot, window, tmp_path, "mlp", MLP)
    view = fitted(window)
    labels = sorted(a["label"] for _, a in view.shown_graph.nodes(data=True)
                    if a.get("kind") == "group")
    assert labels == [f"model.{k}" for k in (0, 10, 2, 4, 6, 8)]
    assert readable(view) and overview_clear_of_nodes(view)


def test_an_lstms_stacked_outputs_fold_into_one_box_and_read_at_fit(qtbot, window, tmp_path):
    """Thirty outs[t], each fed by the folded head and feeding the stack, were one layer thirty
    boxes wide: at fit every box was a bar. Folded side by side, the boxes' text is drawn."""
    run_script(qtbot, window, tmp_path, "lstm", LSTM_OUTPUTS)
    view = fitted(window)
    outs = [n for n, a in view.graph.nodes(data=True) if str(a.get("label")).startswith("outs[")]
    assert len(outs) == 30
    (box,) = [n for n, a in view.shown_graph.nodes(data=True)
              if a.get("label") == "outs[0..29] ×30"]
    assert sorted(view.shown_graph.nodes[box]["members"]) == sorted(outs)
    assert view.canvas.zoom() >= LOD_TEXT and overview_clear_of_nodes(view)
    view.search.setText("outs[7]")  # found inside the box: it opens
    found = view.find_next()
    assert view.graph.nodes[found]["label"] == "outs[7]" and found in view.nodes
    assert box not in view.nodes


def test_example_13_at_fit_shows_names_beside_the_overview(qtbot, window):
    assert window.open_example(str(EXAMPLE_13))
    wait_idle(qtbot, window)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    trigger(qtbot, window, "debug.continue", timeout=60000)
    view = fitted(window)
    assert view.overview.isVisible()
    assert readable(view)
    if view.canvas.zoom() < LOD_TEXT:
        names = {text for text, _ in view.landmark_labels()}
        assert "x" in names and "h" in names
    assert overview_clear_of_nodes(view)


@pytest.mark.parametrize("spelling, node", [
    ("model[4].weight", "t:model.4.weight"),
    ("model.4.weight", "t:model.4.weight"),
    ("MODEL[4].Weight", "t:model.4.weight"),
    ("d['w']", "t:model.0.weight"),
    ('d["w"]', "t:model.0.weight"),
    ("t:model.2.bias", "t:model.2.bias"),
])
def test_search_by_any_spelling_unfolds_and_selects(qtbot, window, tmp_path, spelling, node):
    run_script(qtbot, window, tmp_path, "mlp", MLP)
    view = window.graph_view
    assert node not in view.nodes  # folded away
    view.search.setText(spelling)
    assert view.find_next() == node
    assert node in view.nodes and view.selected_id() == node


def test_search_finds_a_node_name_inside_a_fold(qtbot, window, tmp_path):
    run_script(qtbot, window, tmp_path, "mlp", MLP)
    view = window.graph_view
    view.search.setText("AddmmBackward0")
    assert view.search_status.text() == "6 found"
    found = view.find_next()
    assert view.graph.nodes[found]["label"] == "AddmmBackward0"
    assert view.selected_id() == found


def test_reset_view_state_forgets_zoom_search_folds_and_the_old_drawing(qtbot, window, tmp_path):
    run_script(qtbot, window, tmp_path, "mlp", MLP)
    view = window.graph_view
    view.search.setText("weight")
    view.canvas.user_moved = True
    view.canvas.zoom_by(3.0)
    view.reset_view_state()
    assert view.search.text() == "" and view.search_status.text() == ""
    assert view.folded_groups == set() and not view.canvas.user_moved
    assert view.canvas.zoom() == 1.0
    assert not view.nodes and not view.scene.items() and view.empty_hint.isVisible()


def test_a_new_script_resets_zoom_and_search(qtbot, window, tmp_path):
    run_script(qtbot, window, tmp_path, "mlp", MLP)
    view = window.graph_view
    view.search.setText("weight")
    view.canvas.user_moved = True
    view.canvas.zoom_by(3.0)
    run_script(qtbot, window, tmp_path, "chain", CHAIN)
    assert view.search.text() == ""
    assert not view.canvas.user_moved
    assert all(not g.startswith("model") for g in view.folded_groups)
