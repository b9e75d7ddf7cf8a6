"""``Heatmaps`` lays out only the rows its height has room for: a recording with hundreds of
buffers opened behind 24 pyqtgraph plots took 0.6 s of its first paint."""

from __future__ import annotations

import numpy as np

from app.panels.heatmaps import MAX_HEATMAPS, ROW_HEIGHT, Heatmaps


def test_only_the_rows_that_fit_are_made_and_a_taller_grid_makes_more(qtbot):
    grid = Heatmaps(columns=3)
    qtbot.addWidget(grid)
    grid.resize(400, ROW_HEIGHT + 40)  # room for one row
    grid.show()
    qtbot.waitExposed(grid)
    items = [(f"p{i}", np.full((2, 2), i, np.float32)) for i in range(40)]
    grid.show_arrays(items, 40.0)
    assert list(grid.images) == ["p0", "p1", "p2"]
    grid.resize(400, 4 * ROW_HEIGHT + 40)
    qtbot.waitUntil(lambda: len(grid.images) == 12)
    assert list(grid.images) == [f"p{i}" for i in range(12)]
    grid.resize(400, 40 * ROW_HEIGHT)
    qtbot.waitUntil(lambda: len(grid.images) == MAX_HEATMAPS)
