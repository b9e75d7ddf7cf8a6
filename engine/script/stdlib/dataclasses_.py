"""``import dataclasses``: ``@dataclass`` on the script's classes and its helpers (not
``make_dataclass``, which builds classes from names)."""

from __future__ import annotations

import dataclasses

MISSING_NOTE = "make_dataclass is not (define the class with 'class')"


def build(interp) -> dict:
    return {name: getattr(dataclasses, name) for name in (
        "dataclass", "field", "fields", "asdict", "astuple", "replace", "is_dataclass",
        "MISSING", "KW_ONLY", "InitVar", "FrozenInstanceError")}
