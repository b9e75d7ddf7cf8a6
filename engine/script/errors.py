"""``ScriptError``: the one exception the script interpreter lets out."""

from __future__ import annotations

KINDS = ("syntax", "forbidden", "limit", "runtime", "stopped")


class ScriptError(Exception):
    """A script failed: it could not be parsed, tried something forbidden, hit a limit, raised, or
    was stopped.

    Parameters
    ----------
    kind : str
        One of ``syntax``, ``forbidden``, ``limit``, ``runtime``, ``stopped``.
    message : str
        What went wrong, in words a learner understands. For runtime errors it reads
        ``"<ExceptionType>: <message>"`` and the original exception is ``__cause__``.
    line, col : int or None
        Where (1-based line, 0-based column) in the script, when known.
    """

    def __init__(self, kind: str, message: str, line: int | None = None,
                 col: int | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown ScriptError kind {kind!r}")
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.col = col

    def at(self, node) -> "ScriptError":
        """Give the error the position of ``node`` unless it already has one; returns self."""
        if self.line is None and node is not None:
            self.line = getattr(node, "lineno", None)
            self.col = getattr(node, "col_offset", None)
        return self

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.message}"

    def __repr__(self) -> str:
        return f"ScriptError({self.kind!r}, {self.message!r}, line={self.line}, col={self.col})"


def forbidden(message: str, node=None) -> ScriptError:
    return ScriptError("forbidden", message).at(node)


def limit(message: str, node=None) -> ScriptError:
    return ScriptError("limit", message).at(node)
