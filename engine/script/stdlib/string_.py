"""``import string``: the constants and ``capwords``."""

from __future__ import annotations

import string

MISSING_NOTE = "only string's constants and capwords are"


def build(interp) -> dict:
    names = {name: getattr(string, name) for name in (
        "ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
        "octdigits", "punctuation", "printable", "whitespace")}

    def capwords(s, sep=None):
        return string.capwords(s, sep)

    names["capwords"] = capwords
    return names
