"""The one exception a graph file can raise while being read or written."""

from __future__ import annotations


class GraphFileError(Exception):
    """A graph file could not be read (or written); the message says where and why.

    Parameters
    ----------
    message : str
        What is wrong, in plain words (without the location).
    field : str, optional
        The path of the offending field, e.g. ``breakpoints[2].line``; None when the problem is
        the file as a whole or its JSON syntax.
    line, col : int, optional
        1-based position in the text, for malformed JSON and bad encodings.
    filename : str, optional
        The file the text came from, when known.

    Attributes
    ----------
    message, field, line, col, filename
        As given; ``str(error)`` joins them as ``filename: field: message`` or
        ``filename: line L, column C: message``.
    """

    def __init__(self, message: str, *, field: str | None = None, line: int | None = None,
                 col: int | None = None, filename: str | None = None) -> None:
        self.message = message
        self.field = field
        self.line = line
        self.col = col
        self.filename = filename
        super().__init__(message)

    def location(self) -> str:
        """Where the problem is: the field path or ``line L, column C`` (empty if neither)."""
        if self.field:
            return self.field
        if self.line is not None:
            return f"line {self.line}, column {self.col}"
        return ""

    def with_filename(self, filename: str) -> "GraphFileError":
        """This error, attributed to ``filename`` (the traceback is kept)."""
        self.filename = filename
        return self

    def __str__(self) -> str:
        parts = [p for p in (self.filename, self.location()) if p]
        return ": ".join([*parts, self.message])
