"""Where the bundled example files are, in gallery order."""

from __future__ import annotations

from pathlib import Path

import resources

# The package data of the ``resources`` package (installed with engine/ and app/).
EXAMPLES_DIR = resources.path("examples")


def example_paths() -> list[Path]:
    """The bundled ``.gstep`` examples, sorted by their numeric prefix (``01_...``)."""
    return sorted(EXAMPLES_DIR.glob("*.gstep"))
