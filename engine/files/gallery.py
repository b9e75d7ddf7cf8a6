"""Where the bundled example files are, in gallery order."""

from __future__ import annotations

from pathlib import Path

# resources/ sits next to engine/ in the source tree
EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "resources" / "examples"


def example_paths() -> list[Path]:
    """The bundled ``.gstep`` examples, sorted by their numeric prefix (``01_...``)."""
    return sorted(EXAMPLES_DIR.glob("*.gstep"))
