"""``Heatmaps``: a grid of arrays on one shared, symmetric colour scale."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

from engine.session import panels_model as pm

# Diverging map, white at zero: signs read at a glance on a symmetric scale.
_CMAP = pg.colormap.get("CET-D1A")

MAX_HEATMAPS = 24  # heatmaps drawn per grid
ROW_HEIGHT = 100  # pixels a row of heatmaps needs to be read: only the rows that fit are made


class Heatmaps(pg.GraphicsLayoutWidget):
    """A grid of heatmaps on one shared, symmetric colour scale, one per named array.

    ``clicked(name)`` when a heatmap is clicked.
    """

    clicked = Signal(str)

    def __init__(self, columns: int = 3, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.columns = columns
        self.images: dict[str, pg.ImageItem] = {}
        self.level = 1.0
        self.setMinimumHeight(120)
        self._layout_key = None  # the titles and shapes the plots were laid out for
        self._bar = None
        self._pending = None  # what to draw once shown (a panel behind another tab waits)
        self._shown = None  # (items, level) last asked for: a taller grid draws more of them

    def show_arrays(self, items: list[tuple[str, np.ndarray | None]], level: float) -> None:
        """Draw ``items`` (title, array or None) on the colour scale [-level, level]."""
        # A real model has hundreds of buffers and a pyqtgraph plot costs 20-40 ms to lay out:
        # draw only the rows that fit the grid's height (the table lists them all), so that a
        # recording's first paint and each step stay interactive; a taller grid draws more.
        self._shown = (items, level)
        if not self.isVisible():
            # Behind another dock's tab: laying out plots nobody sees would cost every step
            # (and every re-run of the builder) tens of milliseconds. Drawn when shown.
            self._pending = (items, level)
            return
        self._pending = None
        items = items[:self.fitting()]
        key = tuple((name, None if array is None else array.shape) for name, array in items)
        if key == self._layout_key:
            # The same plots: only the pictures and the scale change (the usual step).
            for name, array in items:
                if array is not None:
                    self.images[name].setImage(pm.as_image(array), levels=(-level, level))
            if self._bar is not None:
                self._bar.setLevels(values=(-level, level))
            self.level = level
            return
        self._layout_key = key
        self._bar = None
        self.clear()
        self.setBackground(self.palette().color(QPalette.ColorRole.Base))  # follows the theme
        self.images = {}
        self.level = level
        for i, (name, array) in enumerate(items):
            plot = self.addPlot(row=i // self.columns, col=i % self.columns)
            plot.setTitle(name if array is not None else f"{name}: None", size="8pt")
            plot.hideAxis("bottom")
            plot.hideAxis("left")
            plot.setMouseEnabled(False, False)
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.invertY(True)
            plot.setAspectLocked(True)  # square cells: a 1x3 vector reads as a row
            if array is None:
                continue
            image = pg.ImageItem(pm.as_image(array), axisOrder="row-major")
            image.setColorMap(_CMAP)
            image.setLevels((-level, level))
            image.mouseClickEvent = lambda ev, n=name: (ev.accept(), self.clicked.emit(n))
            plot.addItem(image)
            self.images[name] = image
        if self.images:
            bar = pg.ColorBarItem(values=(-level, level), colorMap=_CMAP, interactive=False,
                                  width=12, label="shared scale")
            rows = (len(items) + self.columns - 1) // self.columns
            self.addItem(bar, row=0, col=self.columns, rowspan=max(1, rows))
            self._bar = bar

    def fitting(self) -> int:
        """How many heatmaps the grid's height has room for (at least one row)."""
        rows = max(1, int(self.height() // ROW_HEIGHT))
        return min(MAX_HEATMAPS, rows * self.columns)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        shown = getattr(self, "_shown", None)  # (pyqtgraph resizes while it is being built)
        if shown is None or not self.isVisible():
            return
        drawn = len(self._layout_key or ())
        wanted = min(len(shown[0]), self.fitting())
        if wanted > drawn:  # (a shorter grid keeps its plots: laying them out again costs)
            self.show_arrays(*shown)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending is not None:
            self.show_arrays(*self._pending)
