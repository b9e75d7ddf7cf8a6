"""CSV text for any panel's table: a header and rows, arrays as space-separated numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

import numpy as np

Table = tuple[tuple[str, ...], list[tuple]]  # (header, rows), ready for csv_text


def csv_text(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """CSV for any panel's table; arrays are written as space-separated numbers."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(list(header))
    for row in rows:
        writer.writerow([_csv_cell(c) for c in row])
    return buf.getvalue()


def _csv_cell(c) -> str:
    if c is None:
        return "None"
    if isinstance(c, np.ndarray):
        return " ".join(repr(float(x)) for x in c.ravel())
    if isinstance(c, float):
        return repr(c)
    return str(c)
