"""Icons and other bundled resources (the ``resources`` package's data: ``resources.path``)."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

import resources

RESOURCES = resources.path()
ICONS = RESOURCES / "icons"
STYLES = RESOURCES / "styles"
EXAMPLES = RESOURCES / "examples"


@cache
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty icon if it is missing)."""
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


@cache
def mirrored(name: str) -> QIcon:
    """``icon(name)`` flipped left to right (Step Back's arrows are Step Over's, reversed)."""
    from PySide6.QtGui import QPixmap, QTransform

    source = icon(name)
    out = QIcon()
    for size in (16, 24, 32, 48):
        pixmap = source.pixmap(size, size)
        if not pixmap.isNull():
            out.addPixmap(QPixmap(pixmap.transformed(QTransform().scale(-1, 1))))
    return out
