"""``TrainingPlotsPanel``: loss, gradient norm per parameter and update-to-parameter ratio per
iteration, and "Run N iterations" with a progress bar and Stop.

An iteration is one ``backward()`` call (``panels_model.TrainingHistory``). While a run goes on,
a timer redraws at the screen's rate from the recorder's history; the plots downsample and clip
to the view, so 10,000 iterations stay cheap to draw.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QWidget,
)

from engine.session import panels_model as pm
from engine.session.panels_model.training import FIRST_ITERATION, LEGEND_ENTRIES, ranked

from ..words import counted
from .base import Panel
from .csv_export import save_csv
from .hub import panels_hub
from .point import point_view
from .widgets import header, vbox

FRAME_MS = 33  # the plots' refresh while a run goes on: about the screen's rate at best
MAX_FRAME_MS = 500  # ... and at worst
GUI_SHARE = 0.2  # of the time the GUI thread may take while a run goes on
_PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24",
            "#6e7781")
_OTHERS = "#afb8c1"  # the curves past LEGEND_ENTRIES: one grey, one legend entry
OTHERS = "others"  # the key of their one curve in ``curves``


def _plot(title: str, left: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(background="w")
    item = widget.getPlotItem()
    item.setTitle(title, size="9pt")
    item.setLabel("left", left)
    item.setLabel("bottom", "iteration (backward() call)")
    # these two keep 10,000 points per curve cheap: at most ~5 points drawn per pixel
    item.setDownsampling(auto=True, mode="peak")
    item.setClipToView(True)
    # the x range grows in steps (``_grow_x``): an axis whose range changes re-lays out all its
    # ticks, which would otherwise be most of the cost of every frame of a run
    item.enableAutoRange(x=False)
    # The legend sits in the top-right corner on a see-through card, and the y range keeps
    # headroom above the curves for it, so it never hides them.
    item.addLegend(offset=(-6, 4), labelTextSize="7pt", verSpacing=-6,
                   brush=pg.mkBrush(255, 255, 255, 150), pen=pg.mkPen(200, 200, 200, 160))
    item.getViewBox().setDefaultPadding(0.12)
    widget.setMinimumHeight(80)  # fits a low bottom dock; side by side there (resizeEvent)
    return widget


class TrainingPlotsPanel(Panel):
    """Training curves of the current run, fed by the engine's events."""

    _progressed = Signal(int, int)  # from the worker thread: (done, total)

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TrainingPlotsPanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self.names: dict[int, str] = {}  # id(tensor) -> display name, read at the last pause
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.drawn_iterations = 0
        self._drawn = None  # (history, version) last drawn
        self._x_max = 0  # the shown x range's end
        self._legends: dict[str, tuple] = {}  # plot kind -> the entries its legend shows
        self._colours: dict[tuple[str, str], str] = {}  # curve -> the colour it is drawn in
        self._last_tick: tuple[float, float] | None = None  # (GUI thread CPU time, wall time)

        layout = vbox(self)
        top, self.status = header("Training", self.export_csv)
        layout.addLayout(top)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Run"))
        self.count = QSpinBox()
        self.count.setRange(1, 1_000_000)
        self.count.setValue(100)
        self.count.setSuffix(" iterations")
        controls.addWidget(self.count)
        self.run_button = QPushButton("Run N iterations")
        self.run_button.clicked.connect(self.run)
        controls.addWidget(self.run_button)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setValue(0)
        controls.addWidget(self.progress, 1)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        controls.addWidget(self.stop_button)
        layout.addLayout(controls)

        self.loss_plot = _plot("loss", "loss")
        self.norm_plot = _plot("gradient norm per parameter", "‖grad‖")
        self.ratio_plot = _plot("update-to-parameter ratio", "‖Δw‖ / ‖w‖")
        self.norm_plot.setXLink(self.loss_plot)
        self.ratio_plot.setXLink(self.loss_plot)
        self.plots = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        for plot in (self.loss_plot, self.norm_plot, self.ratio_plot):
            self.plots.addWidget(plot, 1)
        layout.addLayout(self.plots, 1)

        self.timer = QTimer(self)  # redraws while a run goes on, at the screen's rate
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self._progressed.connect(self._show_progress)
        controller.state_changed.connect(self.refresh)
        busy = getattr(controller, "busy_changed", None)
        if busy is not None:
            busy.connect(self._busy_changed)
        self.refresh()

    # ------------------------------------------------------------------ commands
    def run(self) -> None:
        n = self.count.value()
        self.progress.setRange(0, n)
        self.progress.setValue(0)
        self.progress.setFormat(f"%v / {n}")
        self.stop_button.setEnabled(True)
        self._last_tick = None
        self.timer.start(FRAME_MS)
        self.controller.run_iterations(n, progress=self._progress_reporter())

    def _progress_reporter(self):
        """``progress(done, total)`` for the worker thread: at most one signal per frame, since
        each crosses to the GUI thread and an iteration can take well under a millisecond."""
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if done >= total or now - last[0] >= FRAME_MS / 1000:
                last[0] = now
                self._progressed.emit(done, total)

        return progress

    def stop(self) -> None:
        self.controller.stop()

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(total)
        self.progress.setValue(done)

    def _busy_changed(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy)
        if busy:
            self._last_tick = None
            self.timer.start(FRAME_MS)
        else:
            self.timer.stop()
            self.redraw()

    # ------------------------------------------------------------------ drawing
    def _tick(self) -> None:
        self.redraw()
        # The GUI thread shares the interpreter lock with the training: whatever it does (this
        # redraw, the paint after it, the progress bar) slows the run by about its share of the
        # time. Measure that share since the last tick and stretch or shrink the interval to
        # keep it near GUI_SHARE: a frame per screen refresh while drawing is cheap, fewer when
        # it is not (many iterations, many parameters, a slow machine).
        cpu, wall = time.thread_time(), time.perf_counter()
        if self._last_tick is not None:
            share = (cpu - self._last_tick[0]) / max(1e-6, wall - self._last_tick[1])
            wanted = self.timer.interval() * share / GUI_SHARE
            interval = (self.timer.interval() + wanted) / 2  # smoothed: one slow frame is noise
            self.timer.setInterval(int(min(MAX_FRAME_MS, max(FRAME_MS, interval))))
        self._last_tick = (cpu, wall)

    def refresh(self, *_args) -> None:
        view = point_view(self.controller, self.hub)
        if view is not None:
            self.names = pm.names_by_id(view.live)
        base = self.palette().color(QPalette.ColorRole.Base)  # follows the window's theme
        for plot in (self.loss_plot, self.norm_plot, self.ratio_plot):
            plot.setBackground(base)
        self.redraw(force=True)

    def redraw(self, force: bool = False) -> bool:
        """Draw the recorder's history if it changed (or ``force``); returns whether it drew."""
        if self.hub is None:
            return False
        recorder = self.hub.recorder
        with recorder.lock:
            history = recorder.history
            drawn = (id(history), history.version)
            if drawn == self._drawn and not force:
                return False  # nothing new since the last frame
            self._drawn = drawn
            loss = np.array(history.loss, dtype=np.float64)
            norms = history.series(history.grad_norms, self.names)
            ratios = history.series(history.update_ratios, self.names)
        self.drawn_iterations = len(loss)
        self._grow_x(len(loss))
        first = float(FIRST_ITERATION)  # iteration 1 is the first backward(), as the status bar
        self._set("loss", self.loss_plot, {"loss": (np.arange(len(loss), dtype=np.float64)
                                                    + first, loss)})
        norms = {name: (xs + first, ys) for name, (xs, ys) in norms.items()}
        ratios = {name: (xs + first, ys) for name, (xs, ys) in ratios.items()}
        self._set("norm", self.norm_plot, norms)
        self._set("ratio", self.ratio_plot, ratios)
        last = f", loss {loss[-1]:.5g}" if len(loss) and np.isfinite(loss[-1]) else ""
        self.status.setText(f"{counted(len(loss), 'iteration')}{last}" if len(loss) else
                            "no backward() yet")
        return True

    def _grow_x(self, n: int) -> None:
        """Show iterations 1..n: the x range (shared by the three plots) grows by half when full."""
        if n > self._x_max or n < self._x_max / 4:  # outgrown, or a new, shorter run
            self._x_max = max(10, int(n * 1.5))
            self.loss_plot.setXRange(FIRST_ITERATION, self._x_max + FIRST_ITERATION,
                                     padding=0.02)

    def _set(self, kind: str, plot: pg.PlotWidget, series: dict) -> None:
        """Draw ``series``: the ``LEGEND_ENTRIES`` largest in colours with a legend entry each,
        the others (``ranked``) as one thin grey curve, cut between parameters by NaNs: a
        pyqtgraph item per curve cost milliseconds each, a ResNet's 161 a second."""
        item = plot.getPlotItem()
        top, rest = ranked(series, LEGEND_ENTRIES)
        wanted = {*top, *([OTHERS] if rest else [])}
        for key in [k for k in self.curves if k[0] == kind and k[1] not in wanted]:
            item.removeItem(self.curves.pop(key))
            self._colours.pop(key, None)
        shown = {name: series[name] for name in top}
        if rest:
            gap = np.array([np.nan])
            shown[OTHERS] = tuple(np.concatenate([part for name in rest
                                                  for part in (series[name][j], gap)])
                                  for j in (0, 1))
        for name, (xs, ys) in shown.items():
            curve = self.curves.get((kind, name))
            if curve is None:
                # no name: the legend is kept by _legend, a few entries however many curves
                curve = item.plot(connect="finite", symbolSize=4, symbolPen=None)
                self.curves[(kind, name)] = curve
            colour = _OTHERS if name == OTHERS else _PALETTE[top.index(name) % len(_PALETTE)]
            if self._colours.get((kind, name)) != colour:
                self._colours[(kind, name)] = colour
                curve.setPen(pg.mkPen(colour, width=1))
                curve.setSymbolBrush(colour)
                curve.setZValue(0 if name == OTHERS else 1)  # the named curves in front
            curve.setSymbol("o" if len(xs) < 50 and name != OTHERS else None)
            curve.setData(xs, ys)
        self._legend(kind, item, top, rest)

    def _legend(self, kind: str, item, top: list, rest: list) -> None:
        """The legend's entries: the top curves, then one for the rest; rebuilt only when the
        ranking changed."""
        entries = (tuple(top), len(rest))
        if self._legends.get(kind) == entries or item.legend is None:
            return
        self._legends[kind] = entries
        item.legend.clear()
        for name in top:
            item.legend.addItem(self.curves[(kind, name)], name)
        if rest:
            item.legend.addItem(self.curves[(kind, OTHERS)], f"{len(rest)} others")

    def resizeEvent(self, event) -> None:
        # docked along the bottom the panel is wide and low: the plots go side by side
        wide = self.width() > 2 * self.height()
        direction = (QBoxLayout.Direction.LeftToRight if wide
                     else QBoxLayout.Direction.TopToBottom)
        if direction != self.plots.direction():
            self.plots.setDirection(direction)
            self.updateGeometry()  # the minimum height changed: a scroll area around us must know
        super().resizeEvent(event)

    # ------------------------------------------------------------------ reading
    def csv_text(self) -> str:
        with self.hub.recorder.lock:
            return pm.csv_text(*pm.training_table(self.hub.recorder.history, self.names))

    def export_csv(self) -> None:
        save_csv(self, self.csv_text(), "training.csv")

    def stop_timers(self) -> None:
        self.timer.stop()

    def connections(self) -> list:
        return super().connections() + [
            (getattr(self.controller, "busy_changed", None), self._busy_changed)]
