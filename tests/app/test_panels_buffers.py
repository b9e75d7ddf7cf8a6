"""GradientBufferPanel, OptimizerPanel and TimelinePanel driven by a scripted run of the real
engine (see test_panels_support.py): accumulation, zero_grad, an SGD-momentum step, time travel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytest.importorskip("pytestqt")

from app.panels import GradientBufferPanel, OptimizerPanel, TimelinePanel
from tests.app.panels_support import FakeController

SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "panels"

ACCUMULATION = """\
import engine as torch
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
loss = (w * w).sum() + (b * b * 2).sum()
loss.backward()
loss = (w * w).sum() + (b * b * 2).sum()
loss.backward()
opt.step()
opt.zero_grad()
loss = (w * 3).sum() + b.sum()
loss.backward()
opt.step()
opt.zero_grad(set_to_none=False)
"""
# statement index -> what has run once the controller stepped over it
AFTER_FIRST_BACKWARD, AFTER_SECOND_BACKWARD, AFTER_STEP, AFTER_ZERO_GRAD = 6, 8, 9, 10
AFTER_SECOND_STEP, AFTER_ZEROS = 13, 14


def shoot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.resize(760, 560)
    assert widget.grab().save(str(SHOTS / f"{name}.png"))


def run_to(controller, statements_done: int) -> None:
    controller.step_over(statements_done - controller.session.next_statement)


@pytest.fixture
def controller():
    c = FakeController(ACCUMULATION)
    c.start()
    yield c
    hub = getattr(c, "_gradstep_panels_hub", None)
    if hub is not None:
        hub.own_recorder.detach()


def make(qtbot, cls, controller):
    panel = cls(controller)
    qtbot.addWidget(panel, before_close_func=lambda w: w.shutdown())
    panel.show()
    return panel


def child_texts(item) -> list[str]:
    return [item.child(i).text(0) for i in range(item.childCount())]


def test_accumulation_shows_one_contribution_per_backward_call(qtbot, controller):
    panel = make(qtbot, GradientBufferPanel, controller)
    with qtbot.waitSignal(controller.state_changed):
        run_to(controller, AFTER_FIRST_BACKWARD)
    assert len(panel.row("w").contributions) == 1
    run_to(controller, AFTER_SECOND_BACKWARD)

    row = panel.row("w")
    assert [c.label for c in row.contributions] == ["backward #1", "backward #2"]
    np.testing.assert_array_equal(row.grad, [4.0, 8.0, 12.0])
    item = panel.item("w")
    assert child_texts(item)[:2] == ["+ backward #1", "+ backward #2"]
    assert item.child(0).text(2) == "[2, 4, 6]" and item.child(1).text(2) == "[2, 4, 6]"
    assert item.text(2) == "[4, 8, 12]"
    assert "sum of 2 backward() calls" in child_texts(item)[-1]
    assert item.text(4).startswith("Δ [2, 4, 6]")  # the change since the last pause
    assert item.background(0).color().name() == "#fff1b8"  # highlighted
    # matrices as heatmaps on one symmetric scale: |b.grad| peaks at 4 * 2 * 2 = 16
    assert panel.heatmaps.level == pytest.approx(16.0)
    assert set(panel.heatmaps.images) == {"w", "b"}
    assert panel.heatmaps.images["b"].getLevels() == pytest.approx((-16.0, 16.0))
    shoot(panel, "buffers_accumulated")


def test_zero_grad_turns_the_contributions_into_none_then_zeros(qtbot, controller):
    panel = make(qtbot, GradientBufferPanel, controller)
    run_to(controller, AFTER_STEP)
    assert not panel.note.isVisibleTo(panel)
    run_to(controller, AFTER_ZERO_GRAD)
    row = panel.row("w")
    assert row.state == "none" and row.contributions == () and row.grad is None
    item = panel.item("w")
    assert item.text(2) == "None" and item.font(2).italic()
    assert item.childCount() == 0
    assert panel.note.isVisibleTo(panel) and "optimizers skip" in panel.note.text()
    assert item.text(4) == "→ None"
    shoot(panel, "buffers_zero_grad_none")

    run_to(controller, AFTER_ZEROS)
    row = panel.row("w")
    assert row.state == "zeros" and row.note == "zeros after zero_grad(set_to_none=False)"
    assert panel.item("w").text(2).startswith("zeros")
    assert panel.item("w").foreground(2).color().name() == "#0969da"
    shoot(panel, "buffers_zero_grad_zeros")


def test_clicking_a_row_selects_the_tensor(qtbot, controller):
    panel = make(qtbot, GradientBufferPanel, controller)
    run_to(controller, AFTER_FIRST_BACKWARD)
    with qtbot.waitSignal(panel.tensor_selected) as blocker:
        panel.tree.itemClicked.emit(panel.item("b"), 0)
    assert blocker.args == ["b"] and controller.selected == ["b"]
    assert "w" in panel.csv_text().splitlines()[1]


def test_sgd_momentum_step_shows_the_filled_in_update_and_the_buffer(qtbot, controller):
    panel = make(qtbot, OptimizerPanel, controller)
    run_to(controller, AFTER_SECOND_BACKWARD)
    assert panel.rule_text() == ""
    run_to(controller, AFTER_STEP)
    w = controller.session.namespace["w"]
    opt = controller.session.namespace["opt"]

    param = panel.param("w")
    assert param.at_step and param.rule.matches
    np.testing.assert_array_equal(param.rule.before, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(param.rule.after, w._data)
    np.testing.assert_allclose(param.rule.after, [0.6, 1.2, 1.8], rtol=1e-6)  # w - 0.1 * 4w
    buf = dict(param.state)["momentum_buffer"]
    np.testing.assert_allclose(buf, opt.state[w]["momentum_buffer"]._data)
    text = panel.rule_text()
    assert "buf = grad   (first step: the buffer starts as the gradient)" in text
    assert "w_new = w - lr * buf" in text
    assert "w_new = w - Δ = [1, 2, 3] - [0.4, 0.8, 1.2] = [0.6, 1.2, 1.8]" in text
    assert "grad (unchanged by step()): [4, 8, 12]" in text
    assert "✓ reproduces the optimizer's update" in text
    shoot(panel, "optimizer_sgd_momentum_step")

    run_to(controller, AFTER_SECOND_STEP)  # the second step uses the buffer from the first
    text = panel.rule_text()
    assert "buf = momentum * buf_prev + (1 - dampening) * grad" in text
    assert "buf_prev = [4, 8, 12]" in text
    assert panel.param("w").rule.matches
    shoot(panel, "optimizer_sgd_second_step")


def test_timeline_goes_back_three_steps_and_the_panels_show_older_values(qtbot, controller):
    buffers = make(qtbot, GradientBufferPanel, controller)
    optimizer = make(qtbot, OptimizerPanel, controller)
    timeline = make(qtbot, TimelinePanel, controller)
    run_to(controller, AFTER_ZERO_GRAD)
    assert buffers.row("w").state == "none"
    assert timeline.slider.maximum() == AFTER_ZERO_GRAD and timeline.current == AFTER_ZERO_GRAD

    with qtbot.waitSignal(controller.state_changed):
        timeline.go_to(timeline.current - 3)  # back between the two backward() calls
    assert controller.travels == [AFTER_ZERO_GRAD - 3]
    row = buffers.row("w")
    assert row.state == "values" and [c.label for c in row.contributions] == ["backward #1"]
    np.testing.assert_array_equal(row.grad, [2.0, 4.0, 6.0])
    assert row.changed and buffers.item("w").text(4) == "Δ [2, 4, 6]"  # None where we were
    assert optimizer.param("w").rule is None  # no step yet at that point
    assert dict(optimizer.param("w").state) == {}
    assert timeline.current == AFTER_ZERO_GRAD - 3 and timeline.slider.value() == 7
    shoot(buffers, "buffers_after_time_travel")

    rows = {(r.what, r.name): r for r in timeline.compare(AFTER_SECOND_BACKWARD, AFTER_STEP)}
    np.testing.assert_allclose(rows["parameter", "w"].delta, [-0.4, -0.8, -1.2], rtol=1e-6)
    assert rows["grad", "w"].summary == "unchanged"
    assert rows["optimizer state", "opt: w.momentum_buffer"].delta is None
    assert timeline.table.rowCount() == 4  # Δw, Δb, and the two new momentum buffers
    assert "Δ w" in timeline.heatmaps.images
    assert "parameter,w," in timeline.csv_text()
    timeline.resize(760, 560)
    shoot(timeline, "timeline_compare")


def test_dragging_the_scrubber_travels(qtbot, controller):
    timeline = make(qtbot, TimelinePanel, controller)
    run_to(controller, AFTER_STEP)
    timeline.slider.setValue(2)
    qtbot.waitUntil(lambda: controller.travels == [2])
    assert timeline.current == 2


def test_dark_theme_keeps_the_states_readable(qtbot, controller):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from app.theme import apply_theme

    app = QApplication.instance()
    saved = (app.style().name(), app.palette(), app.styleSheet())
    apply_theme(app, True)
    try:
        panel = make(qtbot, GradientBufferPanel, controller)
        run_to(controller, AFTER_ZERO_GRAD)
        item = panel.item("w")
        assert item.background(0).color().name() == "#4d4100"  # the dark "changed"
        assert item.foreground(2).color().name() == "#8b949e"  # None, grey on dark
        run_to(controller, AFTER_SECOND_STEP)
        assert panel.item("w").foreground(2).style() == Qt.BrushStyle.NoBrush  # theme text
        shoot(panel, "buffers_dark_theme")
    finally:
        app.setStyle(saved[0])
        app.setPalette(saved[1])
        app.setStyleSheet(saved[2])


def test_export_csv_writes_the_panels_rows(qtbot, controller, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QPushButton

    buffers = make(qtbot, GradientBufferPanel, controller)
    optimizer = make(qtbot, OptimizerPanel, controller)
    run_to(controller, AFTER_STEP)
    for panel, name in ((buffers, "buffers.csv"), (optimizer, "optimizer.csv")):
        target = tmp_path / name
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            staticmethod(lambda *_a, t=target: (str(t), "CSV files (*.csv)")))
        panel.findChild(QPushButton, "export_csv").click()
        assert target.read_bytes().decode("utf-8") == panel.csv_text()
    lines = (tmp_path / "optimizer.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("optimizer,kind,group,hyper-parameters,parameter")
    assert lines[1].startswith("opt,SGD,0,") and ",1.0 2.0 3.0,4.0 8.0 12.0," in lines[1]


def test_clicking_a_heatmap_selects_its_tensor(qtbot, controller):
    panel = make(qtbot, GradientBufferPanel, controller)
    run_to(controller, AFTER_FIRST_BACKWARD)

    class Click:  # what pyqtgraph hands an item's mouseClickEvent
        accepted = False

        def accept(self):
            self.accepted = True

    click = Click()
    with qtbot.waitSignal(panel.tensor_selected) as blocker:
        panel.heatmaps.images["b"].mouseClickEvent(click)
    assert blocker.args == ["b"] and click.accepted and controller.selected == ["b"]


def test_the_change_highlight_survives_the_same_pause_published_again(qtbot, controller):
    panel = make(qtbot, GradientBufferPanel, controller)
    run_to(controller, AFTER_SECOND_BACKWARD)
    assert panel.row("w").changed
    controller.state_changed.emit(controller.snapshot)  # e.g. the graph arrived for this pause
    assert panel.row("w").changed
    assert panel.item("w").background(0).color().name() == "#fff1b8"


def test_heatmaps_redraw_in_place_and_wait_while_hidden(qtbot):
    from app.panels.heatmaps import Heatmaps

    grid = Heatmaps()
    qtbot.addWidget(grid)
    grid.show()
    qtbot.waitExposed(grid)
    first = np.array([[1.0, -1.0]], dtype=np.float32)
    grid.show_arrays([("w", first), ("b", None)], 2.0)
    plots = grid.ci.items.copy()
    image = grid.images["w"]
    second = np.array([[0.5, 0.25]], dtype=np.float32)
    grid.show_arrays([("w", second), ("b", None)], 4.0)  # same titles and shapes
    assert grid.images["w"] is image and grid.ci.items.keys() == plots.keys()
    np.testing.assert_array_equal(image.image, pm_image(second))
    assert tuple(image.getLevels()) == (-4.0, 4.0) and grid.level == 4.0
    grid.show_arrays([("w", np.zeros((2, 2), np.float32))], 1.0)  # a new layout: new plots
    assert grid.images["w"] is not image

    grid.hide()
    grid.show_arrays([("v", first)], 1.0)
    assert "v" not in grid.images  # nobody sees it: nothing is laid out
    grid.show()
    qtbot.waitUntil(lambda: "v" in grid.images)


def pm_image(array):
    from engine.session import panels_model as pm

    return pm.as_image(array)


MANY = """\
import engine as torch
ps = [torch.ones(2, requires_grad=True) for _ in range(450)]
m = torch.nn.Linear(2, 1)
loss = sum((p * (i + 1)).sum() for i, p in enumerate(ps)) + m(torch.ones(1, 2)).sum()
loss.backward()
"""


def test_a_model_of_many_buffers_makes_a_groups_rows_when_it_is_opened(qtbot):
    controller = FakeController(MANY)
    controller.start()
    panel = make(qtbot, GradientBufferPanel, controller)
    with qtbot.waitSignal(controller.state_changed):
        controller.step_over(5)
    assert len(panel.rows) > 450  # past LAZY_ROWS
    groups = {panel.tree.topLevelItem(i).text(0): panel.tree.topLevelItem(i)
              for i in range(panel.tree.topLevelItemCount())}
    assert all(g.childCount() == 0 and not g.isExpanded() for g in groups.values())
    assert any(g.text(1).endswith(" buffers") for g in groups.values())
    # The user opens a group: its rows appear, with the values they stand for.
    group = next(g for g in groups.values() if g.text(1) == f"{len(panel.rows) - 2} buffers")
    group.setExpanded(True)
    assert group.childCount() == len(panel.rows) - 2 and group.text(1) == ""
    names = [group.child(i).data(0, Qt.ItemDataRole.UserRole) for i in range(group.childCount())]
    row = panel.row(names[3])
    np.testing.assert_array_equal(row.grad, [4.0, 4.0])
    assert group.child(3).text(2) == "[4, 4]"
    # Reading one row by name opens its group too.
    item = panel.item("m.weight")
    assert item is not None and item.text(2) == "[[1, 1]]"
    controller._gradstep_panels_hub.own_recorder.detach()
