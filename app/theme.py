"""Light and dark palettes (Fusion style) and the stylesheet beside them in resources/styles."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from .icons import STYLES

# Palette role: (light theme, dark theme).
_ROLES = {
    "Window": ("#f3f3f3", "#25262a"),
    "WindowText": ("#1f2328", "#e6edf3"),
    "Base": ("#ffffff", "#1e1f22"),
    "AlternateBase": ("#f6f8fa", "#2a2c30"),
    "ToolTipBase": ("#ffffe1", "#2b2d31"),
    "ToolTipText": ("#1f2328", "#e6edf3"),
    "Text": ("#1f2328", "#e6edf3"),
    "Button": ("#f3f3f3", "#2f3136"),
    "ButtonText": ("#1f2328", "#e6edf3"),
    "BrightText": ("#d1242f", "#ff7b72"),
    "Highlight": ("#0969da", "#2f81f7"),
    "HighlightedText": ("#ffffff", "#ffffff"),
    "Link": ("#0969da", "#58a6ff"),
    "PlaceholderText": ("#8c959f", "#7d8590"),
    "Mid": ("#d0d7de", "#3d4046"),
    "Dark": ("#afb8c1", "#15161a"),
    "Light": ("#ffffff", "#3a3d43"),
    "Midlight": ("#eaeef2", "#33363b"),
    "Shadow": ("#8c959f", "#000000"),
}


def palette(dark: bool) -> QPalette:
    pal = QPalette()
    for role, colours in _ROLES.items():
        pal.setColor(getattr(QPalette.ColorRole, role), QColor(colours[1 if dark else 0]))
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
