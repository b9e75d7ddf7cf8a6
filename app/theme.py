"""Light and dark palettes (Fusion style) and the stylesheet beside them in resources/styles."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from .icons import STYLES

_LIGHT = {
    "Window": "#f3f3f3", "WindowText": "#1f2328", "Base": "#ffffff", "AlternateBase": "#f6f8fa",
    "ToolTipBase": "#ffffe1", "ToolTipText": "#1f2328", "Text": "#1f2328", "Button": "#f3f3f3",
    "ButtonText": "#1f2328", "BrightText": "#d1242f", "Highlight": "#0969da",
    "HighlightedText": "#ffffff", "Link": "#0969da", "PlaceholderText": "#8c959f",
    "Mid": "#d0d7de", "Dark": "#afb8c1", "Light": "#ffffff", "Midlight": "#eaeef2",
    "Shadow": "#8c959f",
}
_DARK = {
    "Window": "#25262a", "WindowText": "#e6edf3", "Base": "#1e1f22", "AlternateBase": "#2a2c30",
    "ToolTipBase": "#2b2d31", "ToolTipText": "#e6edf3", "Text": "#e6edf3", "Button": "#2f3136",
    "ButtonText": "#e6edf3", "BrightText": "#ff7b72", "Highlight": "#2f81f7",
    "HighlightedText": "#ffffff", "Link": "#58a6ff", "PlaceholderText": "#7d8590",
    "Mid": "#3d4046", "Dark": "#15161a", "Light": "#3a3d43", "Midlight": "#33363b",
    "Shadow": "#000000",
}


def palette(dark: bool) -> QPalette:
    pal = QPalette()
    for role, colour in (_DARK if dark else _LIGHT).items():
        pal.setColor(getattr(QPalette.ColorRole, role), QColor(colour))
    disabled = QColor("#6e7681") if dark else QColor("#a0a7b0")
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText,
                 QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return pal


def apply_theme(app: QApplication, dark: bool) -> None:
    """Fusion with our palette: the same look on every platform, readable in both themes."""
    app.setStyle("Fusion")
    app.setPalette(palette(dark))
    sheet = STYLES / ("dark.qss" if dark else "light.qss")
    app.setStyleSheet(sheet.read_text(encoding="utf-8") if sheet.exists() else "")
