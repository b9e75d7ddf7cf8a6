"""``PlotsPanel``: the figures a script's ``matplotlib.pyplot`` showed, drawn with pyqtgraph.

The session publishes ``FiguresChanged(figures)`` (plain ``engine.plots.Figure`` data) at each
``plt.show()`` and at the end of the run; this panel draws each figure's axes in their subplot
grid: lines with the fmt's colours, styles and markers, scatters, histograms as bars, images
(``imshow``) with their colormap, titles, axis labels, grids, log scales, and a legend in the
corner the data leaves emptiest (matplotlib's ``loc='best'``).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDockWidget, QLabel, QVBoxLayout, QWidget

from engine.plots import model
from engine.session import events as ev

from .base import Panel
from .hub import panels_hub
from .widgets import header, note_label, vbox

EMPTY_TEXT = "plt.show() in the script draws here"
ROW_HEIGHT = 260  # pixels per row of subplots
_STYLES = {"-": Qt.PenStyle.SolidLine, "--": Qt.PenStyle.DashLine, "-.": Qt.PenStyle.DashDotLine,
           ":": Qt.PenStyle.DotLine}
_SYMBOLS = {"o": "o", ".": "o", ",": "o", "s": "s", "^": "t1", "v": "t", "<": "t3", ">": "t2",
            "D": "d", "d": "d", "+": "+", "x": "x", "X": "x", "P": "+", "*": "star", "p": "p",
            "h": "h", "H": "h", "8": "o", "1": "t", "2": "t1", "3": "t3", "4": "t2", "|": "|",
            "_": "_"}
# matplotlib's loc -> (legend anchor, parent anchor, offset)
_CORNERS = {"upper right": ((1, 0), (1, 0), (-8, 8)), "upper left": ((0, 0), (0, 0), (8, 8)),
            "lower left": ((0, 1), (0, 1), (8, -8)), "lower right": ((1, 1), (1, 1), (-8, -8))}
_LOC_ALIASES = {"right": "upper right", "center right": "upper right",
                "center left": "upper left", "upper center": "upper right",
                "lower center": "lower right", "center": "upper right", "1": "upper right",
                "2": "upper left", "3": "lower left", "4": "lower right"}


def _color(hex_color: str, alpha: float = 1.0) -> QColor:
    c = QColor(hex_color)
    c.setAlphaF(max(0.0, min(1.0, float(alpha))))
    return c


def _colormap(name: str) -> pg.ColorMap:
    reverse = name.endswith("_r")
    base = name[:-2] if reverse else name
    if base in ("gray", "grey", "Greys", "binary"):
        cmap = pg.ColorMap([0.0, 1.0], [(0, 0, 0), (255, 255, 255)])
        if base in ("Greys", "binary"):
            reverse = not reverse  # white to black
    elif base in ("coolwarm", "bwr", "seismic", "RdBu"):
        ends = [(59, 76, 192), (221, 221, 221), (180, 4, 38)]
        if base == "RdBu":
            ends = ends[::-1]
        cmap = pg.ColorMap([0.0, 0.5, 1.0], ends)
    elif base in ("Blues", "Reds", "Greens"):
        dark = {"Blues": (8, 48, 107), "Reds": (103, 0, 13), "Greens": (0, 68, 27)}[base]
        cmap = pg.ColorMap([0.0, 1.0], [(247, 251, 255), dark])
    elif base in ("hot",):
        cmap = pg.ColorMap([0.0, 0.4, 0.8, 1.0],
                           [(10, 0, 0), (255, 0, 0), (255, 255, 0), (255, 255, 255)])
    elif base in ("jet",):
        cmap = pg.ColorMap([0.0, 0.35, 0.5, 0.65, 1.0],
                           [(0, 0, 128), (0, 128, 255), (128, 255, 128), (255, 128, 0),
                            (128, 0, 0)])
    else:
        try:
            cmap = pg.colormap.get(base)
        except Exception:  # a name pyqtgraph lacks: matplotlib's default
            cmap = pg.colormap.get("viridis")
    if reverse:
        cmap = cmap.reversed()
    return cmap


def _points(artist) -> tuple[np.ndarray, np.ndarray]:
    """The (x, y) points an artist covers, for placing the legend."""
    if isinstance(artist, (model.Line, model.Scatter)):
        return artist.x, artist.y
    if isinstance(artist, model.Histogram) and artist.counts.size:
        mids = (artist.edges[:-1] + artist.edges[1:]) / 2
        return mids, artist.counts
    if isinstance(artist, model.Bars):
        return artist.x, artist.bottom + artist.height
    return np.zeros(0), np.zeros(0)


def best_corner(ax: model.Axes) -> str:
    """matplotlib's ``loc='best'``, roughly: the corner whose quarter box holds the fewest
    points of the axes' artists (upper right first on ties)."""
    xs, ys = [], []
    for a in ax.artists:
        x, y = _points(a)
        ok = np.isfinite(x) & np.isfinite(y)
        xs.append(x[ok])
        ys.append(y[ok])
    x = np.concatenate(xs) if xs else np.zeros(0)
    y = np.concatenate(ys) if ys else np.zeros(0)
    if ax.yscale == "log":
        keep = y > 0
        x, y = x[keep], np.log10(y[keep])
    if x.size == 0:
        return "upper right"
    span_x = float(np.ptp(x)) or 1.0
    span_y = float(np.ptp(y)) or 1.0
    u = (x - x.min()) / span_x
    v = (y - y.min()) / span_y
    boxes = {"upper right": (u > 0.6) & (v > 0.6), "upper left": (u < 0.4) & (v > 0.6),
             "lower left": (u < 0.4) & (v < 0.4), "lower right": (u > 0.6) & (v < 0.4)}
    counts = {k: int(b.sum()) for k, b in boxes.items()}
    return min(counts, key=lambda k: (counts[k], list(boxes).index(k)))


class FigureView(QWidget):
    """One figure: a heading and its axes in their subplot grid."""

    def __init__(self, figure: model.Figure, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.figure = figure
        self.setObjectName(f"figure{figure.number}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        where = f"shown at line {figure.line}" if figure.line is not None else \
            "left open at the end of the run"
        self.heading = QLabel(f"<b>Figure {figure.number}</b> <span style='color:#57606a'>"
                              f"— {where}</span>")
        layout.addWidget(self.heading)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground("w")
        rows, cols = figure.grid
        ratio = figure.size[1] / max(figure.size[0], 0.1)
        self.canvas.setMinimumHeight(int(min(max(ROW_HEIGHT * rows, 420 * ratio * rows / max(
            cols, 1) if cols > 1 else ROW_HEIGHT * rows), 900)))
        layout.addWidget(self.canvas)
        self.plots: list[pg.PlotItem] = []
        start_row = 0
        if figure.suptitle:
            self.canvas.addLabel(figure.suptitle, row=0, col=0, colspan=cols, size="11pt",
                                 color="#24292f")
            start_row = 1
        for ax in figure.axes:
            nrows, ncols, index = ax.position
            row, col = divmod(index - 1, ncols)
            # a figure mixing grids (subplot(211) then subplot(223)) falls back on its own grid
            row = row * rows // max(nrows, 1)
            col = col * cols // max(ncols, 1)
            plot = self.canvas.addPlot(row=start_row + row, col=col)
            draw_axes(plot, ax)
            self.plots.append(plot)


def draw_axes(plot: pg.PlotItem, ax: model.Axes) -> None:
    """Draw one ``engine.plots.Axes`` into a pyqtgraph PlotItem."""
    plot.setMenuEnabled(False)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(pg.mkPen("#57606a"))
        axis.setTextPen(pg.mkPen("#24292f"))
        axis.enableAutoSIPrefix(False)  # matplotlib labels the values, not "(x0.001)"
    if ax.title:
        plot.setTitle(ax.title, color="#24292f", size="10pt")
    if ax.xlabel:
        plot.setLabel("bottom", ax.xlabel, color="#24292f")
    if ax.ylabel:
        plot.setLabel("left", ax.ylabel, color="#24292f")
    plot.setLogMode(x=ax.xscale == "log", y=ax.yscale == "log")
    if ax.grid:
        plot.showGrid(x=True, y=True, alpha=0.25)
    legend = None
    if ax.legend and any(a.label and not str(a.label).startswith("_") for a in ax.artists):
        legend = plot.addLegend(labelTextSize="8pt", labelTextColor="#24292f",
                                brush=pg.mkBrush(255, 255, 255, 220),
                                pen=pg.mkPen("#d0d7de"))
    image = None
    for artist in ax.artists:
        item = _item(artist)
        if item is None:
            continue
        plot.addItem(item)
        if isinstance(artist, model.Image):
            image = (item, artist)
        if legend is not None and artist.label and not str(artist.label).startswith("_") \
                and not isinstance(artist, model.Image):
            legend.addItem(item, artist.label)
    if image is not None:
        plot.invertY(image[1].origin == "upper")
        if ax.aspect == "equal":
            plot.setAspectLocked(True)
        if ax.colorbar and image[1].array.ndim == 2:
            item, art = image
            lo, hi = item.getLevels() if item.getLevels() is not None else (0.0, 1.0)
            try:
                bar = pg.ColorBarItem(values=(float(lo), float(hi)), colorMap=_colormap(art.cmap),
                                      interactive=False, width=12)
                bar.setImageItem(item, insert_in=plot)
            except Exception:  # an older pyqtgraph: no colour bar
                pass
    elif ax.aspect == "equal":
        plot.setAspectLocked(True)
    if ax.categories:
        plot.getAxis("bottom").setTicks([[(float(i), str(c)) for i, c in
                                          enumerate(ax.categories)]])
    if not ax.axis_on:
        plot.hideAxis("left")
        plot.hideAxis("bottom")
    if ax.xlim is not None and None not in ax.xlim:
        plot.setXRange(*ax.xlim, padding=0)
    if ax.ylim is not None and None not in ax.ylim:
        plot.setYRange(*ax.ylim, padding=0)
    if legend is not None:
        loc = _LOC_ALIASES.get(str(ax.legend_loc), str(ax.legend_loc))
        if loc not in _CORNERS:
            loc = best_corner(ax)
        item_pos, parent_pos, offset = _CORNERS[loc]
        legend.anchor(itemPos=item_pos, parentPos=parent_pos, offset=offset)
        legend.corner = loc


def _item(a):
    if isinstance(a, model.Line):
        pen = (pg.mkPen(_color(a.color, a.alpha), width=a.linewidth,
                        style=_STYLES.get(a.linestyle, Qt.PenStyle.SolidLine))
               if a.linestyle else None)
        kwargs = {}
        if a.marker:
            size = 2 if a.marker in ".," else a.markersize
            kwargs = {"symbol": _SYMBOLS.get(a.marker, "o"), "symbolSize": size * 1.2,
                      "symbolBrush": _color(a.color, a.alpha),
                      "symbolPen": pg.mkPen(_color(a.color, a.alpha))}
        item = pg.PlotDataItem(np.asarray(a.x), np.asarray(a.y), pen=pen, **kwargs)
        item.setDownsampling(auto=True, method="peak")
        return item
    if isinstance(a, model.Scatter):
        sizes = np.sqrt(np.asarray(a.sizes, dtype=float)) * 1.3  # matplotlib's s is points**2
        if a.values is not None and a.values.size:
            lo, hi = float(np.nanmin(a.values)), float(np.nanmax(a.values))
            norm = (a.values - lo) / ((hi - lo) or 1.0)
            cmap = _colormap(a.cmap)
            brushes = [pg.mkBrush(cmap.map(float(v), mode="qcolor")) for v in norm]
        else:
            brushes = pg.mkBrush(_color(a.color, a.alpha))
        return pg.ScatterPlotItem(np.asarray(a.x), np.asarray(a.y), size=sizes, brush=brushes,
                                  pen=pg.mkPen(None), symbol=_SYMBOLS.get(a.marker, "o"))
    if isinstance(a, model.Histogram):
        if a.histtype.startswith("step"):
            return pg.PlotDataItem(np.asarray(a.edges), np.asarray(a.counts), stepMode="center",
                                   pen=pg.mkPen(_color(a.color, a.alpha), width=1.5),
                                   fillLevel=0 if a.histtype == "stepfilled" else None,
                                   brush=_color(a.color, a.alpha * 0.6))
        return pg.BarGraphItem(x0=np.asarray(a.edges[:-1]), x1=np.asarray(a.edges[1:]),
                               height=np.asarray(a.counts), brush=_color(a.color, a.alpha),
                               pen=pg.mkPen("#ffffff", width=0.5))
    if isinstance(a, model.Bars):
        return pg.BarGraphItem(x=np.asarray(a.x), height=np.asarray(a.height),
                               width=np.asarray(a.width), y0=np.asarray(a.bottom),
                               brush=_color(a.color, a.alpha), pen=pg.mkPen(None))
    if isinstance(a, model.RefLine):
        return pg.InfiniteLine(pos=a.value, angle=0 if a.orientation == "h" else 90,
                               pen=pg.mkPen(_color(a.color, a.alpha), width=a.linewidth,
                                            style=_STYLES.get(a.linestyle,
                                                              Qt.PenStyle.SolidLine)))
    if isinstance(a, model.Image):
        arr = np.asarray(a.array)
        item = pg.ImageItem(axisOrder="row-major")
        if arr.ndim == 2:
            finite = arr[np.isfinite(arr)]
            lo = a.vmin if a.vmin is not None else (float(finite.min()) if finite.size else 0.0)
            hi = a.vmax if a.vmax is not None else (float(finite.max()) if finite.size else 1.0)
            if hi <= lo:
                hi = lo + 1.0
            item.setImage(arr, levels=(lo, hi))
            item.setColorMap(_colormap(a.cmap))
        else:
            levels = (0, 255) if arr.dtype.kind in "ui" else (0.0, 1.0)
            item.setImage(np.clip(arr, *levels), levels=levels)
        if a.alpha < 1:
            item.setOpacity(a.alpha)
        return item
    return None


class PlotsPanel(Panel):
    """The script's matplotlib figures, redrawn at each ``FiguresChanged``."""

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PlotsPanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self.figures: tuple = ()  # what is drawn
        self.views: list[FigureView] = []
        layout = vbox(self)
        top, self.status = header("Plots")
        layout.addLayout(top)
        self.empty = note_label(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet("color: #57606a; font-size: 13px; padding: 24px;")
        layout.addWidget(self.empty)
        self.area = QWidget()
        self.area_layout = QVBoxLayout(self.area)
        self.area_layout.setContentsMargins(0, 0, 0, 0)
        self.area_layout.setSpacing(10)
        layout.addWidget(self.area, 1)
        layout.addStretch(0)
        self.connect_signals()
        self.show_figures(getattr(getattr(controller, "session", None), "figures", ()) or ())

    def connections(self) -> list:
        return [(getattr(self.controller, "events_arrived", None), self._events_arrived),
                (getattr(self.controller, "session_replaced", None), self._session_replaced)]

    # ------------------------------------------------------------------ events
    def _events_arrived(self, batch: list) -> None:
        figures = None
        for event in batch:
            if isinstance(event, ev.FiguresChanged):
                figures = event.figures
            elif isinstance(event, ev.Reset):
                figures = ()
        if figures is not None:
            self.show_figures(figures)

    def _session_replaced(self, session) -> None:
        self.show_figures(getattr(session, "figures", ()) or ())

    # ------------------------------------------------------------------ drawing
    def show_figures(self, figures: tuple) -> None:
        """Draw ``figures`` (``engine.plots.Figure``), replacing what is drawn."""
        figures = tuple(figures)
        if figures == self.figures and all(a is b for a, b in zip(figures, self.figures)):
            return
        grew = len(figures) > len(self.figures) or (figures and not self.figures)
        for view in self.views:
            self.area_layout.removeWidget(view)
            view.setParent(None)
            view.deleteLater()
        self.views = []
        self.figures = figures
        for fig in figures:
            view = FigureView(fig, self.area)
            self.area_layout.addWidget(view)
            self.views.append(view)
        self.empty.setVisible(not figures)
        self.status.setText(f"{len(figures)} figure{'s' if len(figures) != 1 else ''}"
                            if figures else "")
        if grew:
            self._raise_dock()

    def _raise_dock(self) -> None:
        """A figure appeared: bring the Plots tab forward (if its dock is open)."""
        w = self.parentWidget()
        while w is not None and not isinstance(w, QDockWidget):
            w = w.parentWidget()
        if w is not None and w.isVisible():
            w.raise_()

    def plot_items(self) -> list[pg.PlotItem]:
        """Every axes drawn, figure by figure (tests read the curves from these)."""
        return [p for view in self.views for p in view.plots]
