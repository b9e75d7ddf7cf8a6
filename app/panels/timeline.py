"""``TimelinePanel``: a scrubber over every pause of the run, with markers, and a comparison of
two points (every named tensor and its grad, the numbers, the optimizer state) as a table and
heatmaps.

Dragging the scrubber asks the controller to travel (``go_to``): the session re-runs the script
to that point and every panel redraws from its state. The comparison reads the two points'
snapshots from the session's timeline (``panels_model.compare``).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from engine.session import panels_model as pm

from ..words import counted
from .base import Panel
from .csv_export import save_csv
from .heatmaps import Heatmaps
from .hub import panels_hub
from .point import point_index
from .widgets import header, vbox

MARKER_COLOURS = {  # stacked in this order, top to bottom
    "backward": QColor("#0969da"),
    "zero_grad": QColor("#8c959f"),
    "step": QColor("#1a7f37"),
    "warning": QColor("#bf8700"),
    "error": QColor("#cf222e"),
}
TABLE_COLUMNS = ("what", "name", "change", "Δ")


class MarkerStrip(QWidget):
    """One tick per timeline point that has markers, coloured by what happened there."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.points: list = []
        self.current: int | None = None
        self.setMinimumHeight(26)

    def sizeHint(self) -> QSize:
        return QSize(300, 26)

    def set_points(self, points: list, current: int | None) -> None:
        self.points, self.current = points, current
        self.update()

    def x_of(self, index: int) -> float:
        n = max(1, len(self.points) - 1)
        margin = 8.0  # QSlider's handle half-width, so ticks line up with the handle
        return margin + (self.width() - 2 * margin) * index / n

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        h = self.height()
        faint = QColor("#d0d7de")
        for point in self.points:
            x = self.x_of(point.index)
            marks = [c for m, c in MARKER_COLOURS.items() if m in point.markers]
            if not marks:
                if len(self.points) <= 400:  # a tick per pause while they stay apart
                    painter.fillRect(QRectF(x - 0.5, h * 0.7, 1, h * 0.3), faint)
                continue
            part = h / len(marks)  # a point with several markers shows them stacked
            for k, colour in enumerate(marks):
                painter.fillRect(QRectF(x - 1.5, part * k, 3, part), colour)
        if self.current is not None:
            painter.setPen(QPen(QColor("#1f2328"), 1.5))
            x = self.x_of(self.current)
            painter.drawLine(int(x), 0, int(x), h)
        painter.end()


class TimelinePanel(Panel):
    """Every pause of the run; travel to any of them and compare two.

    Signals: ``travel_requested(index)`` when the user asks to go to a point.
    """

    travel_requested = Signal(int)

    def __init__(self, controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TimelinePanel")
        self.controller = controller
        self.hub = panels_hub(controller)
        self.hub.acquire()
        self.points: list = []
        self.current: int | None = None
        self.deltas: list[pm.DeltaRow] = []
        self._updating = False

        layout = vbox(self)
        top, self.status = header("Timeline", self.export_csv)
        layout.addLayout(top)
        self.legend = QLabel("  ".join(
            f"<span style='color:{c.name()}'>■</span> {m.replace('_', ' ')}"
            for m, c in MARKER_COLOURS.items()))
        layout.addWidget(self.legend)
        self.strip = MarkerStrip()
        scrub = QGridLayout()  # the strip sits right above the slider so ticks line up
        scrub.setHorizontalSpacing(4)
        scrub.setVerticalSpacing(0)
        self.back_button = QPushButton("◀")
        self.back_button.setFixedWidth(32)
        self.back_button.setToolTip("one point back")
        self.back_button.clicked.connect(lambda: self._go_relative(-1))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setTracking(True)
        self.slider.valueChanged.connect(self._slider_moved)
        self.slider.sliderReleased.connect(self._travel_now)
        self.forward_button = QPushButton("▶")
        self.forward_button.setFixedWidth(32)
        self.forward_button.setToolTip("one point forward")
        self.forward_button.clicked.connect(lambda: self._go_relative(1))
        scrub.addWidget(self.strip, 0, 1)
        scrub.addWidget(self.back_button, 1, 0)
        scrub.addWidget(self.slider, 1, 1)
        scrub.addWidget(self.forward_button, 1, 2)
        scrub.setColumnStretch(1, 1)
        layout.addLayout(scrub)
        self.where = QLabel("no pauses yet")
        layout.addWidget(self.where)

        compare = QHBoxLayout()
        compare.addWidget(QLabel("Compare point A"))
        self.a_box = QSpinBox()
        compare.addWidget(self.a_box)
        compare.addWidget(QLabel("with B"))
        self.b_box = QSpinBox()
        compare.addWidget(self.b_box)
        self.a_here = QPushButton("A = here")
        self.a_here.clicked.connect(lambda: self.a_box.setValue(self.current or 0))
        compare.addWidget(self.a_here)
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(lambda: self.compare(self.a_box.value(),
                                                                 self.b_box.value()))
        compare.addWidget(self.compare_button)
        compare.addStretch(1)
        layout.addLayout(compare)
        self.compared = QLabel("")
        layout.addWidget(self.compared)

        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.heatmaps = Heatmaps(columns=4)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.heatmaps)
        split.setSizes([200, 140])
        layout.addWidget(split, 1)

        self._travel_timer = QTimer(self)  # dragging travels at most every 150 ms
        self._travel_timer.setSingleShot(True)
        self._travel_timer.setInterval(150)
        self._travel_timer.timeout.connect(self._travel_now)
        self.connect_signals()
        self.refresh()

    # ------------------------------------------------------------------ drawing
    def refresh(self, *_args) -> None:
        snap = self.controller.snapshot
        self.points = list(getattr(snap, "timeline", None) or ())
        event = self.hub.rest_event
        self.current = point_index(event) if event is not None else None
        if self.current is None and self.points:
            self.current = len(self.points) - 1
        n = len(self.points)
        self._updating = True
        self.slider.setRange(0, max(0, n - 1))
        if self.current is not None and not self.slider.isSliderDown():  # not under the hand
            self.slider.setValue(self.current)
        for box in (self.a_box, self.b_box):
            box.setRange(0, max(0, n - 1))
        self._updating = False
        self.strip.set_points(self.points, self.current)
        self.where.setText(self._describe(self.current) if n else "no pauses yet")
        counters = getattr(snap, "counters", None)
        if counters is not None:
            self.status.setText(f"{counted(n, 'point')} · backward {counters.backward} · zero_grad "
                                f"{counters.zero_grad} · step {counters.step}")
        else:
            self.status.setText(counted(n, "point"))

    def _describe(self, index: int | None) -> str:
        if index is None or not 0 <= index < len(self.points):
            return ""
        p = self.points[index]
        parts = [f"point {index} of {len(self.points) - 1}", f"{p.kind}"]
        if p.line is not None:
            parts.append(f"line {p.line}")
        if p.iteration is not None:
            parts.append(f"iteration {p.iteration + 1}")  # from 1, as the status bar counts
        if p.backward_step:
            parts.append(f"backward step {p.backward_step[0]} of {p.backward_step[1]}")
        if p.markers:
            parts.append("after " + ", ".join(sorted(p.markers)))
        return " · ".join(parts)

    # ------------------------------------------------------------------ travel
    def go_to(self, index: int) -> None:
        """Travel to point ``index`` (the session re-runs the script up to it)."""
        if not self.points:
            return
        index = max(0, min(index, len(self.points) - 1))
        self.travel_requested.emit(index)
        self.controller.go_to(index)

    def _go_relative(self, step: int) -> None:
        if self.current is not None:
            self.go_to(self.current + step)

    def _slider_moved(self, value: int) -> None:
        if self._updating:
            return
        self.where.setText(self._describe(value))
        self._travel_timer.start()

    def _travel_now(self) -> None:
        self._travel_timer.stop()
        if self.slider.value() != self.current:
            self.go_to(self.slider.value())

    # ------------------------------------------------------------------ comparing
    def compare(self, a: int, b: int) -> list[pm.DeltaRow]:
        """Show Δ from point ``a`` to point ``b``; returns every row compared, the unchanged ones
        too (the table lists the changed ones and counts the others)."""
        self.a_box.setValue(a)
        self.b_box.setValue(b)
        session = getattr(self.controller, "session", None)
        snaps = [session.snapshot(i) if session is not None else None for i in (a, b)]
        if any(s is None for s in snaps):
            self.status.setText("a point's snapshot was dropped to save memory: travel there "
                                "to see it")
            self.deltas = []
        else:
            self.deltas = pm.compare(*snaps)
        self._fill_table(a, b)
        return self.deltas

    def _fill_table(self, a: int, b: int) -> None:
        shown = [r for r in self.deltas if r.changed]
        self.table.setRowCount(len(shown))
        for i, r in enumerate(shown):
            cells = (r.what, r.name, r.summary,
                     "" if r.delta is None else pm.format_array(r.delta))
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        unchanged = len(self.deltas) - len(shown)
        self.compared.setText(f"Δ from point {a} to point {b}: {len(shown)} changed"
                              + (f", {unchanged} unchanged" if unchanged else ""))
        with_delta = [r for r in shown if r.delta is not None and r.what != "number"]
        level = pm.heatmap_level(r.delta for r in with_delta)
        self.heatmaps.show_arrays([(f"Δ {r.name}" if r.what != "grad" else f"Δ {r.name}.grad",
                                    r.delta) for r in with_delta], level)

    # ------------------------------------------------------------------ reading
    def csv_text(self) -> str:
        return pm.csv_text(*pm.compare_table(self.deltas))

    def export_csv(self) -> None:
        save_csv(self, self.csv_text(), "timeline_compare.csv")

    def stop_timers(self) -> None:
        self._travel_timer.stop()
