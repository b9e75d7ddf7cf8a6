"""Counts in the window's words: ``1 buffer``, ``2 buffers``."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, singular for exactly one (``plural`` defaults to ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
