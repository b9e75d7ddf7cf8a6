"""Bytes to a JSON value, with one clear error (and its line and column) for every way to fail.

Python's json module is lenient where a graph file must not be: it accepts ``NaN`` and
``Infinity``, keeps the last of duplicate keys silently, and overflows the C stack's guard with a
RecursionError on deep nesting. Here NaN literals and duplicate keys are kept as markers for the
validator (which names the field), and nesting depth is measured before parsing.
"""

from __future__ import annotations

import codecs
import json
import re

import numpy as np

from .errors import GraphFileError
from .limits import DEFAULT_LIMITS, ReadLimits

_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)
# strings (skipped) or a number too long for json (Python's digit limit is 4300)
_STRING_OR_LONG_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|(\d{4000,})', re.DOTALL)


class NonStandardNumber:
    """A ``NaN``/``Infinity``/``-Infinity`` literal: not JSON; the validator reports its field."""

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __str__(self) -> str:
        spelled = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[self.literal]
        return f'{self.literal} (not valid JSON; inside array data write the string "{spelled}")'


class JSONObject(dict):
    """A parsed JSON object that remembers keys it saw more than once."""

    duplicates: tuple = ()


class ParsedDocument:
    """What ``parse_json`` saw besides the value: whether any object repeated a key."""

    def __init__(self) -> None:
        self.duplicates = False

    def object(self, pairs) -> JSONObject:
        out = JSONObject(pairs)
        if len(out) != len(pairs):
            self.duplicates = True
            seen, dups = set(), []
            for key, _ in pairs:
                if key in seen:
                    dups.append(key)
                seen.add(key)
            out.duplicates = tuple(dups)
        return out


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of character offset ``pos`` in ``text``."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def decode_text(raw: bytes) -> str:
    """UTF-8 bytes (an optional BOM is dropped) to text; other encodings and binary are refused."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise GraphFileError(f"the file is {name} encoded; gradstep files are UTF-8",
                                 line=1, col=1)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    nul = raw.find(b"\x00")
    if nul >= 0:
        # UTF-16 without a BOM has a zero byte in every ASCII character
        hint = "UTF-16 or binary" if raw[:2].count(b"\x00") == 1 else "binary"
        line, col = _byte_line_col(raw, nul)
        raise GraphFileError(f"not a text file (a zero byte; is it {hint}?)", line=line, col=col)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _byte_line_col(raw, e.start)
        raise GraphFileError(f"not valid UTF-8 (byte 0x{raw[e.start]:02x}); gradstep files are "
                             "UTF-8", line=line, col=col) from None


def _byte_line_col(raw: bytes, pos: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, pos) + 1
    start = raw.rfind(b"\n", 0, pos) + 1
    return line, len(raw[start:pos].decode("utf-8", "replace")) + 1


def _long_number_position(text: str) -> tuple[int | None, int | None]:
    for m in _STRING_OR_LONG_NUMBER.finditer(text):
        if m.group(1):
            return line_col(text, m.start(1))
    return None, None


def check_depth(text: str, max_depth: int) -> None:
    """Refuse nesting deeper than ``max_depth`` (before json recurses into it).

    With numpy over the bytes: brackets count where an even number of unescaped quotes precede
    them (outside strings). A regex walking every string and bracket took a second on a big
    recording.
    """
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), np.uint8)
    quotes = np.flatnonzero(raw == 0x22)
    after_backslash = quotes[(quotes > 0) & (raw[np.maximum(quotes - 1, 0)] == 0x5C)]
    if after_backslash.size:  # escaped when an odd run of backslashes precedes (rare)
        escaped = set()
        for q in after_backslash.tolist():
            start = q - 1
            while start > 0 and raw[start - 1] == 0x5C:
                start -= 1
            if (q - start) % 2:
                escaped.add(q)
        quotes = np.array([q for q in quotes.tolist() if q not in escaped], dtype=np.int64)
    opening = (raw == 0x5B) | (raw == 0x7B)
    brackets = np.flatnonzero(opening | (raw == 0x5D) | (raw == 0x7D))
    outside = np.searchsorted(quotes, brackets) % 2 == 0
    brackets = brackets[outside]
    depth = np.cumsum(np.where(opening[brackets], 1, -1))
    deep = np.flatnonzero(depth > max_depth)
    if deep.size:
        at = len(raw[:brackets[deep[0]]].tobytes().decode("utf-8", "surrogatepass"))
        line, col = line_col(text, at)
        raise GraphFileError(f"nested more than {max_depth} levels deep", line=line, col=col)


def parse_json(text: str, limits: ReadLimits = DEFAULT_LIMITS,
               seen: ParsedDocument | None = None):
    """Parse ``text`` as JSON; GraphFileError with line and column when it is malformed.

    ``seen``, when given, learns whether any object repeated a key.
    """
    if not text.strip():
        raise GraphFileError("the file is empty", line=1, col=1)
    check_depth(text, limits.max_depth)
    seen = seen or ParsedDocument()
    try:
        return json.loads(text, object_pairs_hook=seen.object, parse_constant=NonStandardNumber)
    except json.JSONDecodeError as e:
        if e.msg.startswith("Unterminated string"):
            reason = "the file ends inside the string that starts here (truncated?)"
        elif e.pos >= len(text.rstrip()):
            reason = "the file ends too early (truncated?)"
        else:
            reason = f"invalid JSON: {e.msg}"
        raise GraphFileError(reason, line=e.lineno, col=e.colno) from None
    except ValueError:
        # json raises a bare ValueError for an integer beyond Python's digit limit (4300)
        line, col = _long_number_position(text)
        raise GraphFileError("a number with thousands of digits", line=line, col=col) from None
    except RecursionError:
        raise GraphFileError("nested too deeply") from None
