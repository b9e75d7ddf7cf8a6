"""``import enum``: the classes a script class derives from (``class Color(Enum): ...``)."""

from __future__ import annotations

import enum

MISSING_NOTE = "define enums with 'class' (the functional Enum('Name', ...) form is not available)"

BASES = tuple(getattr(enum, name) for name in ("Enum", "IntEnum", "Flag", "IntFlag", "StrEnum")
              if hasattr(enum, name))


def build(interp) -> dict:
    names = {cls.__name__: cls for cls in BASES}
    names.update(auto=enum.auto, unique=enum.unique)
    return names
