"""gradstep's bundled files: example graph files, icons, stylesheets and the ``.gstep`` schema.

A data package, installed with the code (the wheel ships ``examples/*.gstep``, ``icons/*.svg``,
``styles/*.qss`` and ``gstep.schema.json`` as package data). ``path(*parts)`` is the one place
that says where they are, in a source checkout, an editable install or an installed wheel alike:
everything else (``engine.files.gallery``, ``app.icons``, the tests) asks it.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def path(*parts: str) -> Path:
    """The bundled file or folder ``parts`` (``path("examples")``, ``path("icons", "app.svg")``).

    The result may not exist (a trimmed install); callers check. Found through
    ``importlib.resources``, so it is wherever this package was imported from.
    """
    return Path(str(files(__name__))).joinpath(*parts)
