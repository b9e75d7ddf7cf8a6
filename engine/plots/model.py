"""The figure model: what a script's ``matplotlib.pyplot`` calls drew, as plain frozen dataclasses.

``Figure`` -> ``Axes`` -> artists (``Line``, ``Scatter``, ``Histogram``, ``Bars``, ``RefLine``,
``Image``). Fields are plain values, tuples and numpy arrays (read-only, never changed once made),
so figures pickle and cross a process boundary as any event does. ``describe`` says in words what
a figure shows (``gradstep run`` prints it); ``figure_json`` is its ``--format json`` form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np


@dataclass(frozen=True, eq=False)
class Line:
    """``plot``: y against x with matplotlib's style (``linestyle`` '-', '--', '-.', ':' or ''
    for none; ``marker`` a matplotlib marker character or '')."""

    kind: ClassVar[str] = "line"
    x: np.ndarray
    y: np.ndarray
    label: str | None = None
    color: str = "#1f77b4"  # '#rrggbb'
    linestyle: str = "-"
    marker: str = ""
    linewidth: float = 1.5
    markersize: float = 6.0
    alpha: float = 1.0

    @property
    def points(self) -> int:
        return int(self.x.size)


@dataclass(frozen=True, eq=False)
class Scatter:
    """``scatter``: points; ``sizes`` in points**2 (matplotlib's ``s``), ``values`` the ``c=``
    numbers mapped through ``cmap`` (None: every point in ``color``)."""

    kind: ClassVar[str] = "scatter"
    x: np.ndarray
    y: np.ndarray
    label: str | None = None
    color: str = "#1f77b4"
    marker: str = "o"
    sizes: np.ndarray | float = 36.0
    values: np.ndarray | None = None
    cmap: str = "viridis"
    alpha: float = 1.0

    @property
    def points(self) -> int:
        return int(self.x.size)


@dataclass(frozen=True, eq=False)
class Histogram:
    """``hist``: ``counts`` per bin between ``edges`` (numpy.histogram's, as matplotlib's);
    ``values`` is how many numbers went in."""

    kind: ClassVar[str] = "histogram"
    counts: np.ndarray
    edges: np.ndarray
    values: int = 0
    label: str | None = None
    color: str = "#1f77b4"
    alpha: float = 1.0
    histtype: str = "bar"
    density: bool = False

    @property
    def points(self) -> int:
        return int(self.counts.size + self.edges.size)


@dataclass(frozen=True, eq=False)
class Bars:
    """``bar``: bars centred at ``x`` (or starting there: ``align='edge'``)."""

    kind: ClassVar[str] = "bars"
    x: np.ndarray
    height: np.ndarray
    width: np.ndarray
    bottom: np.ndarray
    label: str | None = None
    color: str = "#1f77b4"
    alpha: float = 1.0

    @property
    def points(self) -> int:
        return int(self.x.size)


@dataclass(frozen=True, eq=False)
class RefLine:
    """``axhline`` / ``axvline``: a line across the axes at ``value``."""

    kind: ClassVar[str] = "refline"
    orientation: str  # 'h' or 'v'
    value: float
    label: str | None = None
    color: str = "#1f77b4"
    linestyle: str = "-"
    linewidth: float = 1.5
    alpha: float = 1.0

    @property
    def points(self) -> int:
        return 2


@dataclass(frozen=True, eq=False)
class Image:
    """``imshow``: a 2-D array (mapped through ``cmap`` between ``vmin`` and ``vmax``) or an
    RGB(A) array (M, N, 3|4); ``origin`` 'upper' puts row 0 at the top, as matplotlib."""

    kind: ClassVar[str] = "image"
    array: np.ndarray
    cmap: str = "viridis"
    vmin: float | None = None
    vmax: float | None = None
    origin: str = "upper"
    label: str | None = None
    alpha: float = 1.0

    @property
    def points(self) -> int:
        return int(self.array.size)


ARTISTS = (Line, Scatter, Histogram, Bars, RefLine, Image)


@dataclass(frozen=True, eq=False)
class Axes:
    """One plot area; ``position`` is matplotlib's subplot spec (nrows, ncols, index from 1)."""

    artists: tuple = ()
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    legend: bool = False
    legend_loc: str = "best"
    grid: bool = False
    xlim: tuple | None = None
    ylim: tuple | None = None
    xscale: str = "linear"
    yscale: str = "linear"
    axis_on: bool = True
    aspect: str = "auto"
    colorbar: bool = False
    categories: tuple = ()  # x tick labels of categorical data (plt.bar(['a', 'b'], ...))
    position: tuple = (1, 1, 1)

    @property
    def points(self) -> int:
        return sum(a.points for a in self.artists)


@dataclass(frozen=True, eq=False)
class Figure:
    """A figure as shown: ``number`` is matplotlib's figure number, ``uid`` its creation order in
    the run (numbers are reused after ``close``), ``line`` where it was shown (None: at the end
    of the run)."""

    number: int
    uid: int
    axes: tuple = ()
    suptitle: str = ""
    size: tuple = (6.4, 4.8)  # inches, matplotlib's default figsize
    line: int | None = None
    grid: tuple = field(default=(1, 1))  # rows, cols the axes' positions span

    @property
    def points(self) -> int:
        return sum(a.points for a in self.axes)


# -- in words --------------------------------------------------------------------------------------

def _num(v: float) -> str:
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.3g}"


def _label(a) -> str:
    return f" '{a.label}'" if a.label and not str(a.label).startswith("_") else ""


def describe_artist(a) -> str:
    if isinstance(a, Line):
        n = a.y.size
        if n == 0:
            return f"line{_label(a)} (no points)"
        return f"line{_label(a)} ({n} points, y from {_num(a.y[0])} to {_num(a.y[-1])})"
    if isinstance(a, Scatter):
        return f"scatter{_label(a)} ({a.x.size} points)"
    if isinstance(a, Histogram):
        lo, hi = (_num(a.edges[0]), _num(a.edges[-1])) if a.edges.size else ("?", "?")
        return (f"histogram{_label(a)} ({a.counts.size} bins from {lo} to {hi}, "
                f"{a.values} values)")
    if isinstance(a, Bars):
        return f"bars{_label(a)} ({a.x.size} bars)"
    if isinstance(a, RefLine):
        return f"{'horizontal' if a.orientation == 'h' else 'vertical'} line{_label(a)} at " \
               f"{'y' if a.orientation == 'h' else 'x'}={_num(a.value)}"
    if isinstance(a, Image):
        shape = "x".join(str(s) for s in a.array.shape)
        if a.array.ndim == 2 and a.array.size:
            finite = a.array[np.isfinite(a.array)]
            rng = (f", values from {_num(finite.min())} to {_num(finite.max())}"
                   if finite.size else "")
            return f"image {shape} (cmap '{a.cmap}'{rng})"
        return f"image {shape} (RGB)"
    return type(a).__name__


def describe_axes(ax: Axes) -> str:
    parts = [describe_artist(a) for a in ax.artists] or ["empty"]
    for what, text in (("title", ax.title), ("xlabel", ax.xlabel), ("ylabel", ax.ylabel)):
        if text:
            parts.append(f"{what} '{text}'")
    if ax.legend:
        parts.append("legend")
    if ax.yscale != "linear":
        parts.append(f"{ax.yscale} y axis")
    return "; ".join(parts)


def describe(fig: Figure) -> list[str]:
    """What ``fig`` shows, as lines: ``figure 1: 1 axes; line 'loss' (100 points, y from 0.693
    to 0.0112); title 'Training loss'`` (one more line per axes when there are several)."""
    head = f"figure {fig.number}: {len(fig.axes)} axes"
    if fig.suptitle:
        head += f" ('{fig.suptitle}')"
    where = f"shown at line {fig.line}" if fig.line is not None else "left open at the end"
    if len(fig.axes) == 1:
        return [f"{head}; {describe_axes(fig.axes[0])}; {where}"]
    return [f"{head}; {where}"] + [f"  axes {i}: {describe_axes(ax)}"
                                   for i, ax in enumerate(fig.axes, 1)]


# -- as JSON ---------------------------------------------------------------------------------------

def _floats(a) -> list:
    out = []
    for v in np.asarray(a, dtype=float).ravel().tolist():
        out.append(v if math.isfinite(v) else ("nan" if math.isnan(v) else
                                                ("inf" if v > 0 else "-inf")))
    return out


def artist_json(a) -> dict:
    out: dict = {"kind": a.kind, "label": a.label, "summary": describe_artist(a)}
    if isinstance(a, Line):
        out.update(x=_floats(a.x), y=_floats(a.y), color=a.color, linestyle=a.linestyle,
                   marker=a.marker)
    elif isinstance(a, Scatter):
        out.update(x=_floats(a.x), y=_floats(a.y), color=a.color, marker=a.marker)
    elif isinstance(a, Histogram):
        out.update(counts=_floats(a.counts), edges=_floats(a.edges), values=a.values,
                   color=a.color)
    elif isinstance(a, Bars):
        out.update(x=_floats(a.x), height=_floats(a.height), color=a.color)
    elif isinstance(a, RefLine):
        out.update(orientation=a.orientation, value=_floats([a.value])[0], color=a.color)
    elif isinstance(a, Image):
        out.update(shape=list(a.array.shape), cmap=a.cmap)  # the pixels stay out of the report
    return out


def figure_json(fig: Figure) -> dict:
    return {
        "number": fig.number, "line": fig.line, "suptitle": fig.suptitle,
        "size": list(fig.size), "summary": describe(fig),
        "axes": [{"position": list(ax.position), "title": ax.title, "xlabel": ax.xlabel,
                  "ylabel": ax.ylabel, "legend": ax.legend, "grid": ax.grid,
                  "xscale": ax.xscale, "yscale": ax.yscale,
                  "artists": [artist_json(a) for a in ax.artists]} for ax in fig.axes],
    }
