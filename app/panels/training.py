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
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QBoxLayout,
    QGraphicsWidget,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.session import panels_model as pm
from engine.session.panels_model import training as ptm
from engine.session.panels_model.training import (
    FIRST_ITERATION,
    LEGEND_ENTRIES,
    RATIO_TIP,
    ranked,
)

from ..words import counted
from .base import Panel
from .csv_export import save_csv
from .hub import panels_hub
from .point import point_view
from .widgets import header, note_label, vbox

FRAME_MS = 33  # the plots' refresh while a run goes on: about the screen's rate at best
MAX_FRAME_MS = 500  # ... and at worst
GUI_SHARE = 0.2  # of the time the GUI thread may take while a run goes on
_PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24",
            "#6e7781")
_OTHERS = "#afb8c1"  # the curves past LEGEND_ENTRIES: one grey, one legend entry
OTHERS = "others"  # the key of their one curve in ``curves``
PLOT_MIN_HEIGHT = 56  # a plot's own minimum: its axes and a few ticks
PLOT_ROOM = 170  # the height a plot needs to be read beside or above the others
SIDE_MIN_WIDTH = 420  # ... and the width side by side, its legend on its right
TICK_ROOM = 22  # pixels between two labels of a y axis
NOTE_NAMES = 4  # parameters named in a plot's "no grad" note; the tooltip lists them all


class _SparseAxis(pg.AxisItem):
    """A y axis whose labels keep TICK_ROOM pixels apart: in a low plot, 0 and 50000 rather
    than five numbers printed on top of one another."""

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        if not levels or maxVal <= minVal or size <= 0:
            return levels
        spacing = levels[0][0]
        while spacing > 0 and size * spacing / (maxVal - minVal) < TICK_ROOM:
            mantissa = spacing / 10 ** np.floor(np.log10(spacing))
            spacing *= 2.5 if round(mantissa) == 2 else 2  # 1, 2, 5, 10, 20, ...
        return [(spacing, 0)]


def _plot(title: str, left: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(background="w", axisItems={"left": _SparseAxis("left")})
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
    # A low dock leaves a plot ~100 px: major ticks only, with room between their labels, so
    # "80000" and "60000" never overlap; no "(x1e+03)" prefix squeezed into the axis label.
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        axis.setStyle(maxTickLevel=0, tickTextOffset=2)
        axis.enableAutoSIPrefix(False)
    item.getAxis("left").setWidth(52)
    # The legend sits right of the curves, never on them: a column of the plot's own layout
    # keeps its width free (``_fit_legend``), and the legend floats there in as many columns
    # as the height needs, so it never makes the plot taller than its widget.
    room = QGraphicsWidget()
    room.setMinimumHeight(0)
    item.layout.addItem(room, 2, 3)
    legend = pg.LegendItem(labelTextSize="7pt", verSpacing=-8, horSpacing=4)
    legend.setParentItem(item)
    legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-2, 4))
    legend.room = room
    item.legend = legend
    item.getViewBox().setDefaultPadding(0.05)
    widget.setMinimumHeight(PLOT_MIN_HEIGHT)
    return widget


def _boxed(plot: pg.PlotWidget, note: QLabel | None = None) -> QWidget:
    """A plot with its note under it (the parameters that had no grad)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(plot, 1)
    if note is not None:
        layout.addWidget(note)
        note.setVisible(False)
    return box


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
        # what is drawn (read through the properties below: drawn first if put off)
        self._curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._drawn_iterations = 0
        self._run_starts: list[int] = []  # iterations (0-based) where a new run starts
        self._drawn = None  # (history, version) last drawn
        self._x_max = 0  # the shown x range's end
        self._legends: dict[str, tuple] = {}  # plot kind -> the entries its legend shows
        self._colours: dict[tuple[str, str], str] = {}  # curve -> the colour it is drawn in
        self._last_tick: tuple[float, float] | None = None  # (GUI thread CPU time, wall time)
        self._background = ""  # the plots' background colour, as drawn

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
        self.ratio_plot.setToolTip(RATIO_TIP)
        self.plot_of = {"loss": self.loss_plot, "norm": self.norm_plot, "ratio": self.ratio_plot}
        for plot in self.plot_of.values():
            plot.installEventFilter(self)  # a plot's legend follows its height
        self.norm_plot.setXLink(self.loss_plot)
        self.ratio_plot.setXLink(self.loss_plot)
        self.no_grad = {"norm": note_label(""), "ratio": note_label("")}  # under their plots
        for label in self.no_grad.values():
            label.setWordWrap(False)  # one line (NOTE_NAMES), whatever width the tabs have
        self.boxes = [_boxed(self.loss_plot),
                      _boxed(self.norm_plot, self.no_grad["norm"]),
                      _boxed(self.ratio_plot, self.no_grad["ratio"])]
        self._separators: dict[str, list] = {}  # plot kind -> its run separator lines
        # The plots side by side, one above another, or as tabs when the panel is too low for
        # either (a bottom dock at 1440x900 left each ~120 px): ``_arrange``.
        self.layout_mode = ""
        self.plots = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.plots.setContentsMargins(0, 0, 0, 0)
        together = QWidget()
        together.setLayout(self.plots)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.area = QStackedWidget()
        self.area.addWidget(together)
        self.area.addWidget(self.tabs)
        layout.addWidget(self.area, 1)
        self._arrange("stacked")

        self.timer = QTimer(self)  # redraws while a run goes on, at the screen's rate
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self._progressed.connect(self._show_progress)
        self.connect_signals()
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
            with self.hub.recorder.lock:  # a run's curves keep their names when it is over
                self.hub.recorder.history.learn_names(self.names)
        base = self.palette().color(QPalette.ColorRole.Base)  # follows the window's theme
        themed = base.name() != self._background
        if themed:
            self._background = base.name()
            for plot in (self.loss_plot, self.norm_plot, self.ratio_plot):
                plot.setBackground(base)
        # A step inside an iteration changes no curve: drawn again only when the history or
        # a curve's name changed (learn_names counts that in the history's version), or the
        # theme did. A pyqtgraph redraw of the three plots costs a few ms a step.
        self.redraw(force=themed)

    def draw_stale(self) -> None:
        self.redraw(force=True)  # only the drawing was put off: the names were learned

    @property
    def curves(self) -> dict:
        """(plot kind, series name) -> its curve, as drawn now."""
        self.up_to_date()
        return self._curves

    @property
    def drawn_iterations(self) -> int:
        self.up_to_date()
        return self._drawn_iterations

    @property
    def run_starts(self) -> list[int]:
        """The iterations (0-based) where a new run starts."""
        self.up_to_date()
        return self._run_starts

    def redraw(self, force: bool = False) -> bool:
        """Draw the recorder's history if it changed (or ``force``); returns whether it drew.
        Out of sight (behind the console's tab, as by default) it draws when seen."""
        if self.hub is None:
            return False
        if not force and not self.in_view():
            self._stale = True
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
            starts = history.run_starts()
        self._drawn_iterations = len(loss)
        self._run_starts = starts
        self._grow_x(len(loss))
        first = float(FIRST_ITERATION)  # iteration 1 is the first backward(), as the status bar
        xs = np.arange(len(loss), dtype=np.float64) + first
        bounds = [0, *starts, len(loss)]
        if starts:  # a run per curve, each its own colour: never one line through both
            runs = {f"run {k + 1}": (xs[a:b], loss[a:b])
                    for k, (a, b) in enumerate(zip(bounds, bounds[1:]))}
        else:
            runs = {"loss": (xs, loss)}
        self._set("loss", self.loss_plot, runs, ranked_by_peak=False)
        frozen = ptm.no_grad_names(norms)
        self._note("norm", "no grad", frozen)
        self._note("ratio", "not stepped (no grad)", frozen)
        for kind, plot, series in (("norm", self.norm_plot, norms),
                                   ("ratio", self.ratio_plot, ratios)):
            series = {name: (x + first, y) for name, (x, y) in ptm.drawable(series).items()}
            self._set(kind, plot, series)
        for kind, plot in (("loss", self.loss_plot), ("norm", self.norm_plot),
                           ("ratio", self.ratio_plot)):
            self._separate(kind, plot, starts)
        last = f", loss {loss[-1]:.5g}" if len(loss) and np.isfinite(loss[-1]) else ""
        runs_text = (f" in {len(starts) + 1} runs (the last: {len(loss) - starts[-1]})"
                     if starts else "")
        self.status.setText(f"{counted(len(loss), 'iteration')}{runs_text}{last}"
                            if len(loss) else "no backward() yet")
        return True

    def _note(self, kind: str, what: str, names: list) -> None:
        """Under a plot: the parameters it has no curve for, the first few by name."""
        label = self.no_grad[kind]
        label.setVisible(bool(names))
        if not names:
            return
        shown = ", ".join(names[:NOTE_NAMES])
        more = f" and {len(names) - NOTE_NAMES} more" if len(names) > NOTE_NAMES else ""
        label.setText(f"{what}: {shown}{more}")
        label.setToolTip("\n".join(names))

    def _separate(self, kind: str, plot: pg.PlotWidget, starts: list) -> None:
        """A dashed line before each run after the first, labelled with the run."""
        lines = self._separators.setdefault(kind, [])
        item = plot.getPlotItem()
        while len(lines) > len(starts):
            item.removeItem(lines.pop())
        while len(lines) < len(starts):
            line = pg.InfiniteLine(angle=90, movable=False,
                                   pen=pg.mkPen(_OTHERS, width=1, style=Qt.PenStyle.DashLine),
                                   label=f"run {len(lines) + 2}",
                                   labelOpts={"position": 0.9, "color": "#57606a"})
            item.addItem(line, ignoreBounds=True)
            lines.append(line)
        for line, start in zip(lines, starts):
            line.setValue(start + FIRST_ITERATION - 0.5)

    def _grow_x(self, n: int) -> None:
        """Show iterations 1..n: the x range (shared by the three plots) grows by half when full."""
        if n > self._x_max or n < self._x_max / 4:  # outgrown, or a new, shorter run
            self._x_max = max(10, int(n * 1.5))
            self.loss_plot.setXRange(FIRST_ITERATION, self._x_max + FIRST_ITERATION,
                                     padding=0.02)

    def _set(self, kind: str, plot: pg.PlotWidget, series: dict,
             ranked_by_peak: bool = True) -> None:
        """Draw ``series``: the ``LEGEND_ENTRIES`` largest in colours with a legend entry each,
        the others (``ranked``) as one thin grey curve, cut between parameters by NaNs: a
        pyqtgraph item per curve cost milliseconds each, a ResNet's 161 a second."""
        item = plot.getPlotItem()
        top, rest = ranked(series, LEGEND_ENTRIES) if ranked_by_peak else (list(series), [])
        wanted = {*top, *([OTHERS] if rest else [])}
        for key in [k for k in self._curves if k[0] == kind and k[1] not in wanted]:
            item.removeItem(self._curves.pop(key))
            self._colours.pop(key, None)
        shown = {name: series[name] for name in top}
        if rest:
            gap = np.array([np.nan])
            shown[OTHERS] = tuple(np.concatenate([part for name in rest
                                                  for part in (series[name][j], gap)])
                                  for j in (0, 1))
        for name, (xs, ys) in shown.items():
            curve = self._curves.get((kind, name))
            if curve is None:
                # no name: the legend is kept by _legend, a few entries however many curves
                curve = item.plot(connect="finite", symbolSize=4, symbolPen=None)
                self._curves[(kind, name)] = curve
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
            item.legend.addItem(self._curves[(kind, name)], name)
        if rest:
            item.legend.addItem(self._curves[(kind, OTHERS)], f"{len(rest)} others")
        self._fit_legend(self.plot_of[kind])

    @staticmethod
    def _fit_legend(plot: pg.PlotWidget) -> None:
        """Lay the legend out in columns enough for the plot's height, and keep its width
        free right of the curves."""
        legend = plot.getPlotItem().legend
        row = max((max(sample.height(), label.height()) for sample, label in legend.items),
                  default=1)
        rows = max(1, int((plot.height() - 12) // max(1, row)))
        columns = max(1, -(-len(legend.items) // rows))
        if columns != legend.columnCount:
            legend.setColumnCount(columns)
        legend.updateSize()
        width = legend.width() + 6 if legend.items else 0
        legend.room.setMinimumWidth(width)
        legend.room.setMaximumWidth(width)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and watched in self.plot_of.values():
            self._fit_legend(watched)
        return False

    def resizeEvent(self, event) -> None:
        # docked along the bottom the panel is wide and low: the plots go side by side if each
        # gets room for its curves and its legend, as tabs if not; tall, one above another
        super().resizeEvent(event)
        room = self.height() - self.area.geometry().top()
        wide = self.width() > 2 * self.height()
        if wide and self.width() >= 3 * SIDE_MIN_WIDTH and room >= PLOT_ROOM:
            self._arrange("side by side")
        elif room >= 3 * PLOT_ROOM:
            self._arrange("stacked")
        elif wide and self.width() >= 3 * SIDE_MIN_WIDTH and room >= PLOT_ROOM:
            self._arrange("side by side")
        else:
            self._arrange("tabs")

    def _arrange(self, mode: str) -> None:
        if mode == self.layout_mode:
            return
        self.layout_mode = mode
        titles = ("loss", "gradient norm", "update ratio")
        if mode == "tabs":
            for k, (box, title) in enumerate(zip(self.boxes, titles)):
                self.tabs.addTab(box, title)
                self.tabs.setTabToolTip(k, f"{title} per iteration (backward() call)")
            self.area.setCurrentWidget(self.tabs)
        else:
            self.plots.setDirection(QBoxLayout.Direction.LeftToRight if mode == "side by side"
                                    else QBoxLayout.Direction.TopToBottom)
            for box in self.boxes:
                self.plots.addWidget(box, 1)  # out of the tabs, if it was there
                box.show()  # the tabs hid the pages not shown
            self.area.setCurrentIndex(0)
        for plot, title in zip((self.loss_plot, self.norm_plot, self.ratio_plot),
                               ("loss", "gradient norm per parameter",
                                "update-to-parameter ratio")):
            # the tab says what a plot shows and what x counts: its title and the x axis's
            # label would take a third of its height
            item = plot.getPlotItem()
            item.setTitle(None if mode == "tabs" else title, size="9pt")
            item.showLabel("bottom", mode != "tabs")
        self.updateGeometry()  # the minimum height changed: a scroll area around us must know

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
