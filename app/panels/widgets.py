"""The small widgets a panel is made of: its header row, a note, its layout."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)


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


def stacked(top: QWidget, bottom: QWidget, sizes: tuple[int, int]) -> QSplitter:
    """``top`` over ``bottom``, with a handle between them, at ``sizes`` pixels to start."""
    split = QSplitter(Qt.Orientation.Vertical)
    split.addWidget(top)
    split.addWidget(bottom)
    split.setSizes(list(sizes))
    return split
