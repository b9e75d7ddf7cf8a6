"""Where the window's docks go by default: editor and Build left, graph in the middle, inspector
and panels right, console and plots below, and the sizes they start at."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow

_LEFT = Qt.DockWidgetArea.LeftDockWidgetArea
_RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
_BOTTOM = Qt.DockWidgetArea.BottomDockWidgetArea
DEFAULT_AREAS = {"editor": _LEFT, "build": _LEFT, "inspector": _RIGHT, "console": _BOTTOM,
                 "buffers": _RIGHT, "optimizer": _RIGHT, "training": _BOTTOM,
                 "timeline": _BOTTOM, "predict": _RIGHT, "plots": _BOTTOM}
# Docks that share a place, as tabs: (first, second).
_TABS = (("inspector", "buffers"), ("buffers", "optimizer"), ("optimizer", "predict"),
         ("console", "training"), ("training", "plots"), ("plots", "timeline"))


def arrange_default(window: QMainWindow, docks: dict) -> None:
    """Every dock back in its default place and size."""
    for key, dock in docks.items():
        dock.setFloating(False)
        window.addDockWidget(DEFAULT_AREAS.get(key, _RIGHT), dock)
        dock.show()
    if "build" in docks:  # the palette sits under the code it writes
        window.splitDockWidget(docks["editor"], docks["build"], Qt.Orientation.Vertical)
    tabify_panels(window, docks)
    size_docks(window, docks)


def size_docks(window: QMainWindow, docks: dict) -> None:
    # The graph gets the most room; the console a strip below it.
    width, height = max(window.width(), 1000), max(window.height(), 700)
    window.resizeDocks([docks["editor"], docks["inspector"]],
                       [int(width * 0.3), int(width * 0.27)], Qt.Orientation.Horizontal)
    window.resizeDocks([docks["console"]], [int(height * 0.24)], Qt.Orientation.Vertical)
    if "build" in docks:
        window.resizeDocks([docks["editor"], docks["build"]],
                           [int(height * 0.62), int(height * 0.38)], Qt.Orientation.Vertical)


def tabify_panels(window: QMainWindow, docks: dict) -> None:
    for first, second in _TABS:
        if first in docks and second in docks:
            window.tabifyDockWidget(docks[first], docks[second])
    docks["inspector"].raise_()
    docks["console"].raise_()


def panel_toggle(docks: dict, key: str) -> QAction:
    """The View ▸ Panels check that shows or hides dock ``key``."""
    dock = docks[key]
    toggle = dock.toggleViewAction()
    toggle.setObjectName(f"view.panel.{key}")
    # Shown again by the user, it comes to the front of its tabs (QA: reopened behind the
    # inspector, it seemed not to open); a restored layout's docks keep their tab order.
    toggle.triggered.connect(lambda checked: dock.raise_() if checked else None)
    return toggle
