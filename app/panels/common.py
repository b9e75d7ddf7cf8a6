"""What the panels share: the one event recorder, the state at the point shown, heatmaps, CSV.

The panels are plain QWidgets; the window docks them. They never call the engine's math: rows
come from ``engine.session.panels_model`` and the widgets only render them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget,
)

from engine.session import panels_model as pm
from engine.session.state import Snapshot, capture, visible_names

PAUSED_STATES = ("paused", "finished", "error")  # when the script's names can be read safely

# (light theme, dark theme): the window's theme is the application palette, read when drawing
_TONES = {
    "none": ("#8c959f", "#8b949e"),  # a None grad: grey, italic
    "zeros": ("#0969da", "#58a6ff"),  # zeros: blue
    "changed": ("#fff1b8", "#4d4100"),  # row background: changed since the last pause
    "fresh": ("#dafbe1", "#1b4721"),  # optimizer rows updated by the step just taken
}


def tone(widget: QWidget, key: str) -> QColor:
    """The colour ``key`` for the theme ``widget`` is drawn in."""
    dark = widget.palette().color(QPalette.ColorRole.Base).lightness() < 128
    return QColor(_TONES[key][1 if dark else 0])


# Diverging map, white at zero: signs read at a glance on a symmetric scale.
_CMAP = pg.colormap.get("CET-D1A")


def mono_font() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


class PanelsHub(QObject):
    """One ``PanelsRecorder`` per controller, attached to the engine for the panels' lifetime.

    The recorder hears the engine on the session's worker thread; this object resets it when the
    session is replaced or restarts, and keeps the last event the session came to rest with.
    """

    def __init__(self, controller) -> None:
        super().__init__(controller if isinstance(controller, QObject) else None)
        self.controller = controller
        self.recorder = pm.PanelsRecorder().attach()
        self._unsubscribe_session: Callable[[], None] | None = None
        self._users = 0
        self.rest_event = None  # the last paused / finished / error SessionEvent
        self.last_paused = None
        arrived = getattr(controller, "events_arrived", None)
        if arrived is not None:
            arrived.connect(self._events_arrived)
        replaced = getattr(controller, "session_replaced", None)
        if replaced is not None:
            replaced.connect(self._watch_session)
        self._watch_session(getattr(controller, "session", None))

    def _watch_session(self, session) -> None:
        if self._unsubscribe_session is not None:
            self._unsubscribe_session()
            self._unsubscribe_session = None
        self.recorder.reset()
        counters = getattr(session, "counters", None)
        self.recorder.backward_count = (
            (lambda: counters.backward) if counters is not None else None
        )
        if session is not None and hasattr(session, "subscribe"):
            # runs on the worker thread, in order with the engine's own events
            self._unsubscribe_session = session.subscribe(self._on_session_event)

    def _on_session_event(self, event) -> None:
        if getattr(event, "kind", None) == "reset":
            self.recorder.reset()
        elif event.get("travelled"):
            # travelled back before any backward(): the re-run has not told the recorder yet
            self.recorder.catch_up()

    def _events_arrived(self, batch: list) -> None:
        for event in batch:
            if event.kind in ("paused", "finished", "error"):
                self.rest_event = event
                if event.kind == "paused":
                    self.last_paused = event
            elif event.kind == "reset":
                self.rest_event = self.last_paused = None

    def select(self, name: str) -> None:
        """Ask the window to select ``name`` in the graph and the inspector."""
        select = getattr(self.controller, "select_tensor", None)
        if callable(select):
            select(name)

    def acquire(self) -> None:
        self._users += 1

    def release(self) -> None:
        self._users -= 1
        if self._users > 0:
            return
        self.recorder.detach()
        if self._unsubscribe_session is not None:
            self._unsubscribe_session()
            self._unsubscribe_session = None
        for name, slot in (("session_replaced", self._watch_session),
                           ("events_arrived", self._events_arrived)):
            signal = getattr(self.controller, name, None)
            try:
                if signal is not None:
                    signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass


def panels_hub(controller) -> PanelsHub:
    """The controller's ``PanelsHub``, made on first use."""
    hub = getattr(controller, "_gradstep_panels_hub", None)
    if hub is None or not hub.recorder.attached:
        hub = PanelsHub(controller)
        controller._gradstep_panels_hub = hub
    return hub


def point_index(event) -> int | None:
    """The timeline index of a ``paused`` / ``finished`` / ``error`` SessionEvent."""
    position = event.get("position") if hasattr(event, "get") else None
    index = getattr(position, "point_index", None)
    if index is None:
        index = getattr(event.get("point") if hasattr(event, "get") else None, "index", None)
    return index if isinstance(index, int) else None


@dataclass
class PointView:
    """The state at the point the session shows (the latest pause or a point time travel chose)."""

    snapshot: Snapshot
    live: dict  # the script's names (display name -> object), read at the pause
    index: int | None  # timeline point index
    markers: frozenset  # what happened since the previous point (backward, zero_grad, step, ...)
    travelled: bool  # time travel chose this point (the script was re-run up to it)
    event: object  # the SessionEvent it comes from: the same object means the same pause


def point_view(controller, hub: "PanelsHub") -> PointView | None:
    """The state to draw, or None while the script runs (its names are not safe to read then)."""
    snap = getattr(controller, "snapshot", None)
    if snap is None or getattr(snap, "status", None) not in PAUSED_STATES:
        return None
    event = hub.rest_event or getattr(snap, "pause", None)
    if event is None:
        return None
    pause = event.get("pause") or getattr(hub.last_paused, "fields", {}).get("pause")
    live = visible_names(getattr(pause, "globals", None), getattr(pause, "locals", None))
    if event.kind == "finished" and event.get("namespace") is not None:
        live = visible_names(event.get("namespace"), None)
    snapshot = event.get("snapshot")
    if not isinstance(snapshot, Snapshot):
        snapshot = capture(live, None)
    point = event.get("point")
    index = point_index(event)
    travelled = bool(event.get("travelled"))
    return PointView(snapshot, live, index, frozenset(getattr(point, "markers", ()) or ()),
                     travelled, event)


MAX_HEATMAPS = 24  # heatmaps drawn per grid


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

    def show_arrays(self, items: list[tuple[str, np.ndarray | None]], level: float) -> None:
        """Draw ``items`` (title, array or None) on the colour scale [-level, level]."""
        # A real model has hundreds of buffers and a pyqtgraph plot costs ~0.1 s to lay out:
        # draw the first few (the table lists them all) so a step stays interactive.
        items = items[:MAX_HEATMAPS]
        if not self.isVisible():
            # Behind another dock's tab: laying out plots nobody sees would cost every step
            # (and every re-run of the builder) tens of milliseconds. Drawn when shown.
            self._pending = (items, level)
            return
        self._pending = None
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

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._pending is not None:
            self.show_arrays(*self._pending)


def header(title: str, export: Callable[[], None] | None = None) -> tuple[QHBoxLayout, QLabel]:
    """A panel's top line: its title, room for a status, and an "Export CSV" button."""
    row = QHBoxLayout()
    label = QLabel(f"<b>{title}</b>")
    status = QLabel("")
    status.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    row.addWidget(label)
    row.addWidget(status)
    if export is not None:
        button = QPushButton("Export CSV")
        button.setObjectName("export_csv")
        button.clicked.connect(export)
        row.addWidget(button)
    return row, status


def save_csv(parent: QWidget, text: str, suggested: str) -> str | None:
    """Ask where to save ``text`` and write it there; returns the path (None if cancelled)."""
    path, _ = QFileDialog.getSaveFileName(parent, "Export CSV", suggested, "CSV files (*.csv)")
    if not path:
        return None
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path


def note_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet("color: #57606a; font-size: 11px;")
    return label


def vbox(widget: QWidget) -> QVBoxLayout:
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.setSpacing(4)
    return layout


class Panel(QWidget):
    """Base of the dockable panels: one way to detach from the controller and the engine.

    Subclasses list the controller signals they listen to in ``connections()`` and stop their
    timers in ``stop_timers()``; ``shutdown()`` (also run on close) undoes both and releases the
    shared hub, so no panel outlives its session's listeners.
    """

    hub: "PanelsHub | None" = None

    def connections(self) -> list:
        return [(self.controller.state_changed, self.refresh)]

    def stop_timers(self) -> None:
        pass

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Detach from the controller and the engine; call before the widget is destroyed."""
        if self.hub is None:
            return
        self.stop_timers()
        for signal, slot in self.connections():
            try:
                if signal is not None:
                    signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self.hub.release()
        self.hub = None
