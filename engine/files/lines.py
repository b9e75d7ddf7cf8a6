"""Counting a script's lines the way breakpoints and notes number them."""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_count(script: str) -> int:
    """Lines as Python's parser numbers them (str.splitlines would also split at \\f, \\x1c...).

    An empty script has one (empty) line, so line 1 always exists.
    """
    breaks = len(_LINE_BREAK.findall(script))
    ends_with_break = script.endswith(("\n", "\r"))
    return max(1, breaks + (0 if ends_with_break else 1))
