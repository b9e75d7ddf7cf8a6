"""PyTorch's tensor printing (``torch/_tensor_str.py``), reproduced character for character."""

from __future__ import annotations

import math

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = None  # None: automatic, as PyTorch


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile == "default":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
    elif profile == "short":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 2, 1000, 2, 80
    elif profile == "full":
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, math.inf, 3, 80
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


class _Formatter:
    """torch/_tensor_str.py's ``_Formatter``: the mode (int / fixed / scientific) and the column
    width come from the nonzero finite values only; zeros, nan and inf are padded to that width
    (or overflow it: ``tensor([nan, 1., inf])``)."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            if SCI_MODE is not None:
                self.sci_mode = SCI_MODE
            return
        as_double = finite.astype(np.float64)
        magnitudes = np.abs(as_double)
        mn, mx = magnitudes.min(), magnitudes.max()
        items = finite.tolist()
        self.int_mode = bool(np.all(np.ceil(finite) == finite))
        if self.int_mode:
            if mx / mn > 1000.0 or mx > 1.0e8:
                self.sci_mode = True
                widths = (len(f"{v:.{PRECISION}e}") for v in items)
            else:
                widths = (len(f"{v:.0f}") + 1 for v in items)
        elif mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4:
            self.sci_mode = True
            widths = (len(f"{v:.{PRECISION}e}") for v in items)
        else:
            widths = (len(f"{v:.{PRECISION}f}") for v in items)
        self.max_width = max(self.max_width, max(widths))
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE

    def format(self, v) -> str:
        v = v.item() if hasattr(v, "item") else v
        if not self.floating:
            return str(v)
        if self.sci_mode:
            return f"{v:{self.max_width}.{PRECISION}e}"
        if self.int_mode:
            text = f"{v:.0f}"
            return text if math.isinf(v) or math.isnan(v) else text + "."
        return f"{v:.{PRECISION}f}"

    def width(self) -> int:
        return self.max_width

    def cell(self, v) -> str:
        return self.format(v).rjust(self.max_width)


def _summarized(values: np.ndarray) -> np.ndarray:
    """The values PyTorch looks at for the formatter when a tensor is summarized."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        parts = [_summarized(v) for v in values[:EDGEITEMS]]
        parts += [_summarized(v) for v in values[-EDGEITEMS:]]
    else:
        parts = [_summarized(v) for v in values]
    return np.concatenate([p.reshape(-1) for p in parts]) if parts else values.reshape(-1)


def _vector(values, fmt, indent, summarize, linewidth) -> str:
    element_length = fmt.width() + 2
    per_line = max(1, int(math.floor((linewidth - indent) / element_length)))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = [fmt.cell(v) for v in values[:EDGEITEMS]] + [" ..."]
        data += [fmt.cell(v) for v in values[-EDGEITEMS:]]
    else:
        data = [fmt.cell(v) for v in values]
    lines = [data[i:i + per_line] for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(", ".join(line) for line in lines) + "]"


def _body(values, fmt, indent, summarize, linewidth) -> str:
    dim = values.ndim
    if dim == 0:
        return fmt.cell(values)
    if dim == 1:
        return _vector(values, fmt, indent, summarize, linewidth)
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        rows = [*range(EDGEITEMS), None, *range(values.shape[0] - EDGEITEMS, values.shape[0])]
    else:
        rows = range(values.shape[0])
    slices = ["..." if i is None else _body(values[i], fmt, indent + 1, summarize, linewidth)
              for i in rows]
    sep = "," + "\n" * (dim - 1) + " " * (indent + 1)
    return "[" + sep.join(slices) + "]"


_DEFAULT_DTYPES = {"float32", "int64", "bool"}


def format_values(values: np.ndarray, indent: int, *, threshold=None, linewidth=None) -> str:
    """The values as PyTorch prints them inside ``tensor(...)``; ``threshold`` and ``linewidth``
    stand in for the print options (the window's views use their own, narrower ones)."""
    summarize = values.size > (THRESHOLD if threshold is None else threshold)
    fmt = _Formatter(_summarized(values) if summarize else values)
    return _body(values, fmt, indent, summarize, LINEWIDTH if linewidth is None else linewidth)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    values = t._data
    indent = len(prefix)
    suffixes = []
    if values.size == 0 and values.ndim != 1:
        body = "[]"
        suffixes.append(f"size=({', '.join(map(str, values.shape))})")
    elif values.size == 0:
        body = "[]"
    else:
        body = format_values(values, indent)
    empty_not_default = values.size == 0 and values.dtype.name != "float32"
    if values.dtype.name not in _DEFAULT_DTYPES or empty_not_default:
        suffixes.append(f"dtype=torch.{values.dtype.name}")
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{fn.name().rsplit(':', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def _add_suffixes(text: str, suffixes, indent: int) -> str:
    """Append ``, dtype=...``, ``, grad_fn=<...>``, moving one to a new line when it would cross
    the line width (PyTorch's ``_add_suffixes``)."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
