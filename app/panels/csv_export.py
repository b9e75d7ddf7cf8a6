"""A panel's "Export CSV": ask where, write the text the panels' model made."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QWidget


def save_csv(parent: QWidget, text: str, suggested: str) -> str | None:
    """Ask where to save ``text`` and write it there; returns the path (None if cancelled)."""
    path, _ = QFileDialog.getSaveFileName(parent, "Export CSV", suggested, "CSV files (*.csv)")
    if not path:
        return None
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path
