"""How big a graph file may be: a file from anyone must not exhaust memory or the stack."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadLimits:
    """The limits applied while reading a graph file.

    Attributes
    ----------
    max_file_bytes : int
        Files larger than this are refused before they are read.
    max_array_elements : int
        The largest single array (checked from its shape, before allocating).
    max_total_elements : int
        All arrays in the file together.
    max_depth : int
        The deepest nesting of JSON lists and objects.
    max_script_chars : int
        The longest script.
    """

    max_file_bytes: int = 64 * 1024 * 1024
    max_array_elements: int = 4_000_000
    max_total_elements: int = 16_000_000
    max_depth: int = 64
    max_script_chars: int = 1_000_000


DEFAULT_LIMITS = ReadLimits()
