"""Icons and other bundled resources (resources/ beside the packages)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PySide6.QtGui import QIcon

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
ICONS = RESOURCES / "icons"
STYLES = RESOURCES / "styles"
EXAMPLES = RESOURCES / "examples"


@lru_cache(maxsize=None)
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty icon if it is missing)."""
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()
