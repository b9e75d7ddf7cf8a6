"""The panels' colours and fonts, for the theme a widget is drawn in."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QWidget

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


def mono_font() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font
