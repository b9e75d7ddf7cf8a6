"""The ``matplotlib.pyplot`` a script imports: matplotlib's common API and argument conventions,
drawing into the run's ``PlotState`` instead of a window.

``build_pyplot(interp)`` / ``build_matplotlib(interp)`` give the names of the two modules for one
run (``engine/script/stdlib/pyplot_.py`` and ``matplotlib_.py`` hand them to the interpreter).
Values are converted as matplotlib does (``np.asarray``): tensors become arrays, and a tensor
that requires grad raises torch's own "Can't call numpy() on Tensor that requires grad" error.
Nothing here writes a file: ``savefig`` warns and shows the figure in the Plots panel instead.
"""

from __future__ import annotations

import builtins
import warnings
from dataclasses import replace

import numpy as np

from ..tensor import Tensor
from . import model
from .state import MAX_FIGURE_POINTS, PlotState, state_of
from .styles import CYCLE, linestyle_of, marker_of, parse_fmt, to_hex

SAVEFIG_REFUSAL = ("gradstep scripts cannot write files: the figure is shown in the Plots panel "
                   "instead")
COLORMAPS = ("viridis", "plasma", "inferno", "magma", "cividis", "gray", "grey", "gray_r",
             "binary", "Greys", "hot", "jet", "coolwarm", "bwr", "seismic", "RdBu", "Blues",
             "Reds", "Greens")


class PlotWarning(UserWarning):
    """What pyplot tells the user without stopping the script (savefig, unknown no-ops)."""


# -- values ----------------------------------------------------------------------------------------

def _elements(value) -> int:
    if isinstance(value, Tensor):
        return int(value._data.size)
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple)):
        return len(value)
    return 1


def as_array(value, *, dtype=float) -> np.ndarray:
    """``np.asarray(value)`` as matplotlib calls it on a script's value: tensors through
    ``Tensor.numpy()`` (so one that requires grad raises torch's RuntimeError), lists of tensors
    element by element; a private copy, read-only."""
    if _elements(value) > MAX_FIGURE_POINTS:
        from ..script.errors import limit

        raise limit(f"too many points: {_elements(value)} (gradstep's limit is "
                    f"{MAX_FIGURE_POINTS} per figure)")
    out = np.array(_plain(value), dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def _plain(value):
    if isinstance(value, Tensor):
        return value.numpy()  # RuntimeError: Can't call numpy() on Tensor that requires grad...
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _strings(value) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(
        isinstance(v, str) for v in value)


def _float(value, what="value") -> float:
    if isinstance(value, Tensor):
        return float(value.numpy().reshape(-1)[0]) if value.numel() == 1 else float("nan")
    return float(value)


def _text(value) -> str:
    return "" if value is None else str(value)


_LINE_KW = {"color", "c", "linestyle", "ls", "linewidth", "lw", "marker", "markersize", "ms",
            "label", "alpha"}
_IGNORED_KW = {"zorder", "antialiased", "aa", "drawstyle", "ds", "markevery", "markeredgecolor",
               "mec", "markerfacecolor", "mfc", "markeredgewidth", "mew", "solid_capstyle",
               "dash_capstyle", "solid_joinstyle", "dash_joinstyle", "clip_on", "rasterized",
               "picker", "scalex", "scaley", "fillstyle", "visible", "gid", "url"}


def _check_kwargs(kwargs: dict, allowed: set, owner: str) -> None:
    for k in kwargs:
        if k not in allowed and k not in _IGNORED_KW:
            raise AttributeError(f"{owner}.set() got an unexpected keyword argument '{k}'")


# -- artists' handles ------------------------------------------------------------------------------

class _Artist:
    """A script's handle on one artist of an Axes (what matplotlib returns from ``plot``...)."""

    __slots__ = ("_ax", "_artist")
    _name = "Artist"

    def __init__(self, ax, artist) -> None:
        self._ax = ax
        self._artist = artist

    def _update(self, **changes) -> None:
        new = replace(self._artist, **changes)
        arts = self._ax._artists
        for i, a in enumerate(arts):
            if a is self._artist:
                arts[i] = new
                break
        self._artist = new
        self._ax._fig._dirty = True

    def get_label(self):
        return self._artist.label

    def set_label(self, s) -> None:
        self._update(label=None if s is None else str(s))

    def set_alpha(self, alpha) -> None:
        self._update(alpha=1.0 if alpha is None else float(alpha))

    def remove(self) -> None:
        arts = self._ax._artists
        self._ax._artists[:] = [a for a in arts if a is not self._artist]
        self._ax._fig._dirty = True

    def __repr__(self) -> str:
        return f"<{self._name}>"

    def __copy__(self):
        raise TypeError(f"cannot pickle '{self._name}' object")

    def __deepcopy__(self, memo):
        raise TypeError(f"cannot pickle '{self._name}' object")


class Line2D(_Artist):
    __slots__ = ()
    _name = "Line2D"

    def __repr__(self) -> str:
        return f"Line2D({self._artist.label or ''})"

    def get_xdata(self):
        return np.array(self._artist.x)

    def get_ydata(self):
        return np.array(self._artist.y)

    def get_data(self):
        return self.get_xdata(), self.get_ydata()

    def set_data(self, *args) -> None:
        x, y = args[0] if len(args) == 1 else args
        self._set_xy(as_array(x), as_array(y))

    def set_xdata(self, x) -> None:
        self._set_xy(as_array(x), self._artist.y)

    def set_ydata(self, y) -> None:
        self._set_xy(self._artist.x, as_array(y))

    def _set_xy(self, x, y) -> None:
        x, y = x.ravel(), y.ravel()
        fig = self._ax._fig
        fig._state.check_room(fig, max(0, x.size - self._artist.x.size))
        self._update(x=x, y=y)

    def get_color(self):
        return self._artist.color

    def set_color(self, color) -> None:
        self._update(color=to_hex(color))

    def set_linestyle(self, ls) -> None:
        self._update(linestyle=linestyle_of(ls))

    def set_linewidth(self, w) -> None:
        self._update(linewidth=float(w))

    def set_marker(self, m) -> None:
        self._update(marker=marker_of(m))


class PathCollection(_Artist):
    __slots__ = ()
    _name = "PathCollection"

    def get_offsets(self):
        return np.column_stack([self._artist.x, self._artist.y])


class AxesImage(_Artist):
    __slots__ = ()
    _name = "AxesImage"

    def get_array(self):
        return np.array(self._artist.array)

    def set_data(self, a) -> None:
        arr = _image_array(a)
        fig = self._ax._fig
        fig._state.check_room(fig, max(0, arr.size - self._artist.array.size))
        self._update(array=arr)

    def set_cmap(self, cmap) -> None:
        self._update(cmap=_cmap_name(cmap))

    def set_clim(self, vmin=None, vmax=None) -> None:
        if isinstance(vmin, (tuple, list)):
            vmin, vmax = vmin
        self._update(vmin=None if vmin is None else float(vmin),
                     vmax=None if vmax is None else float(vmax))


class BarContainer(_Artist):
    """What ``bar`` and ``hist`` return as matplotlib's patches: its length is the bar count."""

    __slots__ = ()
    _name = "BarContainer"

    def __len__(self) -> int:
        a = self._artist
        return int(a.counts.size if isinstance(a, model.Histogram) else a.x.size)


class Colormap:
    """``plt.cm.gray``, ``plt.get_cmap('viridis')``: a colormap by name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<matplotlib.colors.Colormap object: '{self.name}'>"


class _ColormapModule:
    __slots__ = ()

    def __getattr__(self, name):
        if name in COLORMAPS:
            return Colormap(name)
        raise AttributeError(f"module 'matplotlib.cm' has no attribute '{name}'")

    def get_cmap(self, name=None):
        return Colormap(_cmap_name(name or "viridis"))

    def __repr__(self) -> str:
        return "<module 'matplotlib.cm'>"


class _Style:
    """``plt.style``: ``use()`` is accepted (the Plots panel has one look), ``available`` lists."""

    __slots__ = ()
    available = ("default", "classic", "ggplot", "seaborn-v0_8", "bmh", "fivethirtyeight",
                 "dark_background", "grayscale")

    def use(self, style) -> None:
        return None

    def __repr__(self) -> str:
        return "<module 'matplotlib.style'>"


def _cmap_name(cmap) -> str:
    if cmap is None:
        return "viridis"
    if isinstance(cmap, Colormap):
        return cmap.name
    if isinstance(cmap, str):
        base = cmap[:-2] if cmap.endswith("_r") and cmap != "gray_r" else cmap
        if base in COLORMAPS:
            return cmap
        raise ValueError(f"{cmap!r} is not a valid value for cmap; supported values are "
                         + ", ".join(repr(c) for c in COLORMAPS))
    raise TypeError(f"cmap must be a str or Colormap, not {type(cmap).__name__}")


def _image_array(a) -> np.ndarray:
    arr = as_array(a, dtype=None)
    if arr.dtype.kind == "b":
        arr = arr.astype(float)
    if arr.ndim == 3 and arr.shape[0] in (1, 3, 4) and arr.shape[-1] not in (1, 3, 4):
        raise TypeError(f"Invalid shape {arr.shape} for image data")
    if arr.ndim == 3 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[-1] in (3, 4))):
        raise TypeError(f"Invalid shape {arr.shape} for image data")
    if arr.ndim == 2 or arr.dtype.kind == "f":
        arr = arr.astype(float)
    arr.setflags(write=False)
    return arr


# -- Axes ------------------------------------------------------------------------------------------

class Axes:
    """A script's Axes: ``plot``, ``scatter``, ``hist``, ``imshow``, ``bar``, ``set_title``..."""

    __slots__ = ("_fig", "_position", "_artists", "_props", "_line_cycle", "_patch_cycle",
                 "_categories")

    def __init__(self, fig, position) -> None:
        self._fig = fig
        self._position = position
        self._artists: list = []
        self._props: dict = {}
        self._line_cycle = 0
        self._patch_cycle = 0
        self._categories: tuple = ()

    def __repr__(self) -> str:
        title = self._props.get("title", "")
        return f"<Axes: title={{'center': {title!r}}}>" if title else "<Axes: >"

    def __copy__(self):
        raise TypeError("cannot pickle 'Axes' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'Axes' object")

    # -- plumbing ---------------------------------------------------------------------------------
    def _next_line_color(self) -> str:
        c = CYCLE[self._line_cycle % len(CYCLE)]
        self._line_cycle += 1
        return c

    def _next_patch_color(self) -> str:
        c = CYCLE[self._patch_cycle % len(CYCLE)]
        self._patch_cycle += 1
        return c

    def _add(self, artist):
        self._fig._state.check_room(self._fig, artist.points)
        self._artists.append(artist)
        self._fig._dirty = True
        return artist

    def _set(self, **props) -> None:
        self._props.update(props)
        self._fig._dirty = True

    def _x_positions(self, x) -> np.ndarray:
        """Categorical x (strings) as positions 0, 1, ... with their labels, as matplotlib."""
        if _strings(x):
            cats = list(self._categories)
            for v in x:
                if v not in cats:
                    cats.append(v)
            self._categories = tuple(cats)
            self._fig._dirty = True
            return np.array([cats.index(v) for v in x], dtype=float)
        return as_array(x)

    def _snapshot(self) -> model.Axes:
        p = self._props
        return model.Axes(
            artists=tuple(self._artists), title=p.get("title", ""), xlabel=p.get("xlabel", ""),
            ylabel=p.get("ylabel", ""), legend=p.get("legend", False),
            legend_loc=p.get("legend_loc", "best"), grid=p.get("grid", False),
            xlim=p.get("xlim"), ylim=p.get("ylim"), xscale=p.get("xscale", "linear"),
            yscale=p.get("yscale", "linear"), axis_on=p.get("axis_on", True),
            aspect=p.get("aspect", "auto"), colorbar=p.get("colorbar", False),
            categories=self._categories, position=self._position)

    # -- drawing ----------------------------------------------------------------------------------
    def plot(self, *args, scalex=True, scaley=True, data=None, **kwargs):
        """``plot([x], y, [fmt], [x2], y2, [fmt2], ..., **kwargs)``: a list of Line2D."""
        _check_kwargs(kwargs, _LINE_KW, "Line2D")
        groups = []
        args = list(args)
        while args:
            this, args = args[:2], args[2:]
            if args and isinstance(args[0], str):
                this.append(args.pop(0))
            groups.append(this)
        lines = []
        for group in groups:
            fmt = group.pop() if group and isinstance(group[-1], str) else None
            if not group:
                raise ValueError("plot() needs data: plot(y) or plot(x, y)")
            if len(group) == 1:
                y = as_array(group[0])
                x = None
            else:
                x_raw, y = group[0], as_array(group[1])
                x = self._x_positions(x_raw)
            if y.ndim > 2 or (x is not None and x.ndim > 2):
                raise ValueError("x and y can be no greater than 2D, but have shapes "
                                 f"{x.shape if x is not None else y.shape} and {y.shape}")
            if x is None:
                x = np.arange(y.shape[0] if y.ndim else 1, dtype=float)
            if y.ndim == 0:
                y = y.reshape(1)
            if x.ndim == 0:
                x = x.reshape(1)
            if x.shape[0] != y.shape[0]:
                raise ValueError(f"x and y must have same first dimension, but have shapes "
                                 f"{x.shape} and {y.shape}")
            ys = [y] if y.ndim == 1 else [y[:, j] for j in range(y.shape[1])]
            xs = [x] * len(ys) if x.ndim == 1 else [x[:, j] for j in range(x.shape[1])]
            if len(xs) != len(ys):
                xs = (xs * len(ys))[:len(ys)] if len(xs) == 1 else xs
            ls, marker, color = parse_fmt(fmt) if fmt is not None else ("-", "", None)
            ls = "-" if ls is None else ls  # a colour alone keeps the default line
            marker = "" if marker is None else marker
            for xi, yi in zip(xs, ys):
                c = kwargs.get("color", kwargs.get("c"))
                line = model.Line(
                    x=_ro(xi), y=_ro(yi), label=_label_kw(kwargs.get("label"), len(ys)),
                    color=to_hex(c) if c is not None else (color or self._next_line_color()),
                    linestyle=linestyle_of(kwargs["linestyle"] if "linestyle" in kwargs else
                                           kwargs["ls"]) if ("linestyle" in kwargs
                                                             or "ls" in kwargs) else ls,
                    marker=marker_of(kwargs["marker"]) if "marker" in kwargs else marker,
                    linewidth=float(kwargs.get("linewidth", kwargs.get("lw", 1.5))),
                    markersize=float(kwargs.get("markersize", kwargs.get("ms", 6.0))),
                    alpha=_alpha(kwargs.get("alpha")))
                if c is None and color is not None:
                    pass  # an explicit fmt colour does not advance the cycle, as matplotlib
                lines.append(Line2D(self, self._add(line)))
        return lines

    def semilogy(self, *args, **kwargs):
        lines = self.plot(*args, **kwargs)
        self._set(yscale="log")
        return lines

    def semilogx(self, *args, **kwargs):
        lines = self.plot(*args, **kwargs)
        self._set(xscale="log")
        return lines

    def loglog(self, *args, **kwargs):
        lines = self.plot(*args, **kwargs)
        self._set(xscale="log", yscale="log")
        return lines

    def scatter(self, x, y, s=None, c=None, marker=None, cmap=None, alpha=None, label=None,
                color=None, **kwargs):
        _check_kwargs(kwargs, {"edgecolors", "edgecolor", "linewidths", "vmin", "vmax", "norm",
                               "plotnonfinite", "facecolors", "ec", "lw"}, "PathCollection")
        xs, ys = self._x_positions(x).ravel(), as_array(y).ravel()
        if xs.size != ys.size:
            raise ValueError("x and y must be the same size")
        values = None
        col = color
        if c is not None:
            if isinstance(c, str) or (isinstance(c, (tuple, list)) and len(c) in (3, 4)
                                      and xs.size not in (3, 4)):
                col = c
            else:
                values = as_array(c).ravel()
                if values.size != xs.size:
                    raise ValueError(f"'c' argument has {values.size} elements, which is "
                                     f"inconsistent with 'x' and 'y' with size {xs.size}.")
        sizes = 36.0 if s is None else (as_array(s).ravel() if _elements(s) > 1
                                        else float(as_array(s).ravel()[0]))
        art = model.Scatter(
            x=xs, y=ys, label=None if label is None else str(label),
            color=to_hex(col) if col is not None else self._next_patch_color(),
            marker=marker_of(marker) or "o" if marker is not None else "o",
            sizes=sizes, values=values, cmap=_cmap_name(cmap), alpha=_alpha(alpha))
        return PathCollection(self, self._add(art))

    def hist(self, x, bins=None, range=None, density=False, weights=None, cumulative=False,
             bottom=None, histtype="bar", align="mid", orientation="vertical", rwidth=None,
             log=False, color=None, label=None, stacked=False, alpha=None, **kwargs):
        """numpy.histogram's bins (10 by default, over the data's range), as matplotlib."""
        _check_kwargs(kwargs, {"edgecolor", "ec", "linewidth", "lw", "facecolor", "fc",
                               "fill", "hatch"}, "Rectangle")
        data = as_array(x)
        w = None if weights is None else as_array(weights)
        if bins is None:
            bins = 10  # rcParams['hist.bins']
        elif not isinstance(bins, (int, str)):
            bins = as_array(bins)
        datasets = ([data.ravel()] if data.ndim <= 1
                    else [data[:, j] for j in builtins.range(data.shape[1])])
        if len(datasets) > 1:
            both = np.concatenate(datasets)
            edges = np.histogram_bin_edges(both, bins, range)
        else:
            edges = None
        results = []
        for k, d in enumerate(datasets):
            wk = None if w is None else (w.ravel() if w.ndim <= 1 else w[:, k])
            counts, e = np.histogram(d, edges if edges is not None else bins, range,
                                     weights=wk, density=bool(density))
            if cumulative:
                counts = np.cumsum(counts)
            results.append((counts.astype(float), e.astype(float)))
        patches = []
        for k, (counts, e) in enumerate(results):
            lab = label[k] if isinstance(label, (list, tuple)) else label
            col = color[k] if isinstance(color, (list, tuple)) and not isinstance(
                color[0], (int, float)) else color
            art = model.Histogram(
                counts=_ro(counts), edges=_ro(e), values=int(datasets[k].size),
                label=None if lab is None else str(lab),
                color=to_hex(col) if col is not None else self._next_line_color(),
                alpha=_alpha(alpha), histtype=str(histtype), density=bool(density))
            patches.append(BarContainer(self, self._add(art)))
        if log:
            self._set(yscale="log")
        if len(results) == 1:
            return np.array(results[0][0]), np.array(results[0][1]), patches[0]
        return [np.array(c) for c, _ in results], np.array(results[0][1]), patches

    def bar(self, x, height, width=0.8, bottom=None, *, align="center", color=None, label=None,
            alpha=None, **kwargs):
        _check_kwargs(kwargs, {"edgecolor", "ec", "linewidth", "lw", "tick_label", "yerr",
                               "xerr", "capsize", "ecolor", "hatch", "facecolor", "fc"},
                      "Rectangle")
        xs = self._x_positions(x).ravel()
        n = xs.size
        h = np.broadcast_to(as_array(height).ravel(), (n,)).copy()
        wd = np.broadcast_to(as_array(width).ravel(), (n,)).copy()
        b = np.zeros(n) if bottom is None else np.broadcast_to(as_array(bottom).ravel(),
                                                               (n,)).copy()
        if align == "edge":
            xs = xs + wd / 2
        art = model.Bars(x=_ro(xs), height=_ro(h), width=_ro(wd), bottom=_ro(b),
                         label=None if label is None else str(label),
                         color=to_hex(color) if isinstance(color, (str, tuple)) and color
                         is not None else self._next_patch_color(), alpha=_alpha(alpha))
        return BarContainer(self, self._add(art))

    def axhline(self, y=0, xmin=0, xmax=1, **kwargs):
        return self._refline("h", y, kwargs)

    def axvline(self, x=0, ymin=0, ymax=1, **kwargs):
        return self._refline("v", x, kwargs)

    def _refline(self, orientation, value, kwargs):
        _check_kwargs(kwargs, _LINE_KW, "Line2D")
        c = kwargs.get("color", kwargs.get("c"))
        art = model.RefLine(
            orientation=orientation, value=_float(value), label=kwargs.get("label"),
            color=to_hex(c) if c is not None else self._next_line_color(),
            linestyle=linestyle_of(kwargs.get("linestyle", kwargs.get("ls", "-"))),
            linewidth=float(kwargs.get("linewidth", kwargs.get("lw", 1.5))),
            alpha=_alpha(kwargs.get("alpha")))
        return Line2D(self, self._add(art))

    def imshow(self, X, cmap=None, norm=None, aspect=None, interpolation=None, alpha=None,
               vmin=None, vmax=None, origin=None, extent=None, **kwargs):
        arr = _image_array(X)
        art = model.Image(array=arr, cmap=_cmap_name(cmap),
                          vmin=None if vmin is None else float(vmin),
                          vmax=None if vmax is None else float(vmax),
                          origin="lower" if origin == "lower" else "upper", alpha=_alpha(alpha))
        self._set(aspect="equal" if aspect in (None, "equal") else "auto")
        return AxesImage(self, self._add(art))

    def matshow(self, A, **kwargs):
        return self.imshow(A, **kwargs)

    # -- decoration -------------------------------------------------------------------------------
    def set_title(self, label, fontdict=None, loc=None, pad=None, **kwargs):
        self._set(title=_text(label))

    def get_title(self, loc="center"):
        return self._props.get("title", "")

    def set_xlabel(self, xlabel, fontdict=None, labelpad=None, **kwargs):
        self._set(xlabel=_text(xlabel))

    def set_ylabel(self, ylabel, fontdict=None, labelpad=None, **kwargs):
        self._set(ylabel=_text(ylabel))

    def get_xlabel(self):
        return self._props.get("xlabel", "")

    def get_ylabel(self):
        return self._props.get("ylabel", "")

    def set_xlim(self, left=None, right=None, **kwargs):
        if isinstance(left, (tuple, list)):
            left, right = left
        self._set(xlim=(None if left is None else _float(left),
                        None if right is None else _float(right)))

    def set_ylim(self, bottom=None, top=None, **kwargs):
        if isinstance(bottom, (tuple, list)):
            bottom, top = bottom
        self._set(ylim=(None if bottom is None else _float(bottom),
                        None if top is None else _float(top)))

    def set_xscale(self, value, **kwargs):
        self._set(xscale=_scale(value))

    def set_yscale(self, value, **kwargs):
        self._set(yscale=_scale(value))

    def legend(self, *args, loc=None, **kwargs):
        """``legend()``: the labelled artists; ``legend(['a', 'b'])`` labels them in order."""
        labels = None
        if len(args) == 1:
            labels = args[0]
        elif len(args) == 2:
            handles, labels = args
            for h, lab in zip(handles, labels):
                if isinstance(h, list):
                    h = h[0] if h else None
                if isinstance(h, _Artist):
                    h.set_label(lab)
            labels = None
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            for i, lab in enumerate(labels):
                if i < len(self._artists):
                    a = self._artists[i]
                    self._artists[i] = replace(a, label=str(lab))
        self._set(legend=True, legend_loc=str(loc or "best"))

    def grid(self, visible=None, which="major", axis="both", **kwargs):
        self._set(grid=(not self._props.get("grid", False)) if visible is None and not kwargs
                  else bool(True if visible is None else visible))

    def axis(self, arg=None, **kwargs):
        if arg in ("off", False):
            self._set(axis_on=False)
        elif arg in ("on", True):
            self._set(axis_on=True)
        elif arg in ("equal", "scaled", "image", "square"):
            self._set(aspect="equal")
        elif isinstance(arg, (tuple, list)) and len(arg) == 4:
            self.set_xlim(arg[0], arg[1])
            self.set_ylim(arg[2], arg[3])
        elif arg not in (None, "auto", "tight"):
            raise ValueError(f"Unrecognized string {arg!r} to axis; try 'on' or 'off'")
        return (0.0, 1.0, 0.0, 1.0)

    def set_aspect(self, aspect, **kwargs):
        self._set(aspect="equal" if aspect in ("equal", 1, 1.0) else "auto")

    def set(self, **kwargs):
        for key, value in kwargs.items():
            setter = {"title": self.set_title, "xlabel": self.set_xlabel,
                      "ylabel": self.set_ylabel, "xlim": self.set_xlim, "ylim": self.set_ylim,
                      "xscale": self.set_xscale, "yscale": self.set_yscale,
                      "aspect": self.set_aspect}.get(key)
            if setter is None and key not in ("xticks", "yticks", "xticklabels", "yticklabels"):
                raise AttributeError(f"Axes.set() got an unexpected keyword argument '{key}'")
            if setter is not None:
                setter(value)

    # accepted, and not drawn by the Plots panel (ticks, text, layout)
    def set_xticks(self, *args, **kwargs):
        return []

    set_yticks = set_xticklabels = set_yticklabels = set_xticks

    def tick_params(self, *args, **kwargs):
        return None

    def text(self, *args, **kwargs):
        return None

    annotate = text

    def cla(self):
        self._artists.clear()
        self._props.clear()
        self._line_cycle = self._patch_cycle = 0
        self._categories = ()
        self._fig._dirty = True

    clear = cla

    @property
    def lines(self) -> list:
        return [Line2D(self, a) for a in self._artists if isinstance(a, model.Line)]

    @property
    def images(self) -> list:
        return [AxesImage(self, a) for a in self._artists if isinstance(a, model.Image)]

    @property
    def figure(self):
        return self._fig

    def get_figure(self):
        return self._fig


def _ro(a) -> np.ndarray:
    a = np.array(a, dtype=float, copy=True)
    a.setflags(write=False)
    return a


def _alpha(a) -> float:
    return 1.0 if a is None else float(a)


def _label_kw(label, n):
    if label is None:
        return None
    return str(label)


def _scale(value) -> str:
    if value in ("linear", "log", "symlog", "logit"):
        return "log" if value in ("log", "symlog") else str(value)
    raise ValueError(f"{value!r} is not a valid value for scale; supported values are "
                     "'asinh', 'function', 'functionlog', 'linear', 'log', 'logit', 'symlog'")


class AxesArray:
    """What ``subplots(2, 2)`` returns as axes: numpy's object array of Axes, as far as scripts
    use it (``axes[0, 1]``, ``axes[1]``, ``for ax in axes``, ``axes.flat``, ``ravel()``,
    ``flatten()``, ``shape``); numpy's own object arrays stay out of scripts."""

    __slots__ = ("_items", "_shape")

    def __init__(self, items, shape) -> None:
        self._items = list(items)
        self._shape = tuple(shape)

    @property
    def shape(self):
        return self._shape

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        return len(self._items)

    @property
    def flat(self):
        return list(self._items)

    def ravel(self):
        return AxesArray(self._items, (len(self._items),))

    flatten = ravel

    def tolist(self):
        if self.ndim == 1:
            return list(self._items)
        return [self[i].tolist() for i in range(self._shape[0])]

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        shape = list(shape)
        if -1 in shape:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            shape[shape.index(-1)] = len(self._items) // known
        n = 1
        for s in shape:
            n *= s
        if n != len(self._items):
            raise ValueError(f"cannot reshape array of size {len(self._items)} into shape "
                             f"{tuple(shape)}")
        return AxesArray(self._items, tuple(shape))

    def __len__(self) -> int:
        return self._shape[0]

    def _row(self, i):
        if self.ndim == 1:
            return self._items[i]
        cols = self._shape[1]
        return AxesArray(self._items[i * cols:(i + 1) * cols], self._shape[1:])

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) == 1:
                return self[key[0]]
            if len(key) != 2 or self.ndim != 2:
                raise IndexError(f"too many indices for array: array is {self.ndim}-dimensional, "
                                 f"but {len(key)} were indexed")
            rows, col = key
            if isinstance(rows, slice):
                picked = [self._row(i)[col] for i in range(*rows.indices(self._shape[0]))]
                if isinstance(col, slice):
                    flat = [a for r in picked for a in r._items]
                    return AxesArray(flat, (len(picked), len(flat) // max(len(picked), 1)))
                return AxesArray(picked, (len(picked),))
            return self._row(_index(rows, self._shape[0]))[col]
        if isinstance(key, slice):
            idx = range(*key.indices(self._shape[0]))
            if self.ndim == 1:
                return AxesArray([self._items[i] for i in idx], (len(idx),))
            rows = [self._row(i) for i in idx]
            return AxesArray([a for r in rows for a in r._items], (len(idx), self._shape[1]))
        return self._row(_index(key, self._shape[0]))

    def __iter__(self):
        return iter([self._row(i) for i in range(self._shape[0])])

    def __repr__(self) -> str:
        return f"array({self.tolist()!r}, dtype=object)"


def _index(i, n) -> int:
    if not isinstance(i, int) or isinstance(i, bool):
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                         "and integer or boolean arrays are valid indices")
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for axis 0 with size {n}")
    return i + n if i < 0 else i


# -- Figure ----------------------------------------------------------------------------------------

class Figure:
    """A script's figure: ``add_subplot``, ``subplots``, ``suptitle``, ``axes``..."""

    __slots__ = ("_state", "_number", "_uid", "_axes", "_current_ax", "_suptitle", "_size",
                 "_dirty")

    def __init__(self, state: PlotState, number: int, uid: int, figsize=None) -> None:
        self._state = state
        self._number = number
        self._uid = uid
        self._axes: list = []
        self._current_ax = None
        self._suptitle = ""
        self._size = (6.4, 4.8) if figsize is None else (float(figsize[0]), float(figsize[1]))
        self._dirty = True

    def __repr__(self) -> str:
        w, h = (round(v * 100) for v in self._size)
        return f"<Figure size {w}x{h} with {len(self._axes)} Axes>"

    def __copy__(self):
        raise TypeError("cannot pickle 'Figure' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'Figure' object")

    def _points(self) -> int:
        return sum(a.points for ax in self._axes for a in ax._artists)

    def _snapshot(self, line) -> model.Figure:
        self._dirty = False
        axes = tuple(ax._snapshot() for ax in self._axes)
        rows = max((a.position[0] for a in axes), default=1)
        cols = max((a.position[1] for a in axes), default=1)
        return model.Figure(number=self._number, uid=self._uid, axes=axes,
                            suptitle=self._suptitle, size=self._size, line=line,
                            grid=(rows, cols))

    def _gca(self) -> Axes:
        if self._current_ax is None:
            return self.add_subplot(1, 1, 1)
        return self._current_ax

    @property
    def number(self) -> int:
        return self._number

    @property
    def axes(self) -> list:
        return list(self._axes)

    def get_axes(self) -> list:
        return list(self._axes)

    def gca(self) -> Axes:
        return self._gca()

    def sca(self, ax) -> None:
        if ax in self._axes:
            self._current_ax = ax

    def add_subplot(self, *args, **kwargs) -> Axes:
        """``add_subplot(nrows, ncols, index)`` or ``add_subplot(211)``: the Axes at that place
        (the same one again if it exists, as matplotlib's ``subplot``)."""
        if not args:
            args = (1, 1, 1)
        if len(args) == 1 and isinstance(args[0], int):
            code = args[0]
            if not 111 <= code <= 999:
                raise ValueError(f"Integer subplot specification must be a three-digit number, "
                                 f"not {code}")
            args = (code // 100, (code // 10) % 10, code % 10)
        if len(args) != 3:
            raise TypeError(f"subplot() takes 1 or 3 positional arguments but {len(args)} were "
                            "given")
        nrows, ncols, index = args
        for v, what in ((nrows, "nrows"), (ncols, "ncols")):
            if not isinstance(v, int) or v <= 0:
                raise ValueError(f"Number of {'rows' if what == 'nrows' else 'columns'} must be "
                                 f"a positive integer, not {v!r}")
        if not isinstance(index, int) or not 1 <= index <= nrows * ncols:
            raise ValueError(f"num must be an integer with 1 <= num <= {nrows * ncols}, not "
                             f"{index!r}")
        position = (nrows, ncols, index)
        for ax in self._axes:
            if ax._position == position:
                self._current_ax = ax
                return ax
        ax = Axes(self, position)
        self._axes.append(ax)
        self._current_ax = ax
        self._dirty = True
        return ax

    def subplots(self, nrows=1, ncols=1, *, sharex=False, sharey=False, squeeze=True,
                 **kwargs):
        for v, what in ((nrows, "rows"), (ncols, "columns")):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"Number of {what} must be a positive integer, not {v!r}")
        if nrows * ncols > 64:
            from ..script.errors import limit

            raise limit(f"too many axes: {nrows}x{ncols} (gradstep's limit is 64 per figure)")
        made = []
        for k in range(nrows * ncols):
            ax = Axes(self, (nrows, ncols, k + 1))
            self._axes.append(ax)
            made.append(ax)
        self._current_ax = made[-1]
        self._dirty = True
        if squeeze and nrows == 1 and ncols == 1:
            return made[0]
        if squeeze and (nrows == 1 or ncols == 1):
            return AxesArray(made, (len(made),))
        return AxesArray(made, (nrows, ncols))

    def suptitle(self, t, **kwargs) -> None:
        self._suptitle = _text(t)
        self._dirty = True

    def set_size_inches(self, w, h=None, forward=True) -> None:
        if h is None:
            w, h = w
        self._size = (float(w), float(h))
        self._dirty = True

    def get_size_inches(self):
        return np.array(self._size)

    def colorbar(self, mappable=None, ax=None, **kwargs):
        target = ax if isinstance(ax, Axes) else (
            mappable._ax if isinstance(mappable, _Artist) else self._gca())
        target._set(colorbar=True)

    def legend(self, *args, **kwargs) -> None:
        for ax in self._axes:
            ax._set(legend=True)

    def tight_layout(self, *args, **kwargs) -> None:
        return None

    def subplots_adjust(self, *args, **kwargs) -> None:
        return None

    def savefig(self, fname=None, *args, **kwargs) -> None:
        _refuse_savefig(self._state, self, fname)

    def show(self, *args, **kwargs) -> None:
        self._state.show_figure(self, self._state._line())

    def clf(self, keep_observers=False) -> None:
        self._axes.clear()
        self._current_ax = None
        self._suptitle = ""
        self._dirty = True

    clear = clf


# -- the modules -----------------------------------------------------------------------------------

def _refuse_savefig(state, fig, fname) -> None:
    line = state._line()
    where = f" on line {line}" if line is not None else ""
    name = f"({fname!r})" if isinstance(fname, str) else "()"
    warnings.warn(f"savefig{name}{where} wrote nothing: {SAVEFIG_REFUSAL}", PlotWarning,
                  stacklevel=2)
    state.show_figure(fig, line)


def build_pyplot(interp, state: PlotState | None = None) -> dict:
    """The names of ``matplotlib.pyplot`` for one run of ``interp`` (drawing into its state)."""
    state = state if state is not None else state_of(interp)
    state.reset()  # figures are per run

    def line_now():
        stmt = interp._current_stmt()
        return getattr(stmt, "lineno", None)

    def line():
        return line_now()

    def fig_factory(st, number, uid, figsize=None, **kwargs):
        return Figure(st, number, uid, figsize)

    def gcf() -> Figure:
        return state.current(fig_factory)

    def gca() -> Axes:
        return gcf()._gca()

    def figure(num=None, figsize=None, dpi=None, facecolor=None, edgecolor=None, frameon=True,
               clear=False, **kwargs):
        if isinstance(num, Figure):
            state.activate(num)
            return num
        if isinstance(num, int) and not isinstance(num, bool):
            for f in state.open_figures():
                if f._number == num:
                    state.activate(f)
                    if clear:
                        f.clf()
                    return f
            return state.new_figure(fig_factory, num, figsize=figsize)
        return state.new_figure(fig_factory, figsize=figsize)

    def subplots(nrows=1, ncols=1, *, sharex=False, sharey=False, squeeze=True,
                 figsize=None, **kwargs):
        fig = figure(figsize=figsize)
        return fig, fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=squeeze)

    def subplot(*args, **kwargs) -> Axes:
        return gcf().add_subplot(*args)

    def close(fig=None) -> None:
        if fig is None:
            if state._current is not None:
                state.close(state._current)
        elif fig == "all":
            state.close_all()
        elif isinstance(fig, Figure):
            state.close(fig)
        elif isinstance(fig, int):
            for f in state.open_figures():
                if f._number == fig:
                    state.close(f)
        else:
            raise TypeError("close() argument must be a Figure, an int, a string, or None, "
                            f"not {type(fig)}")

    def clf() -> None:
        gcf().clf()

    def cla() -> None:
        gca().cla()

    def show(*args, block=None, **kwargs) -> None:
        state.show(line())

    def pause(interval) -> None:
        """Shows the current figure as it is now (a live plot updates); waits for nothing."""
        if state._current is not None:
            state.show_figure(state._current, line())

    def draw() -> None:
        if state._current is not None:
            state.show_figure(state._current, line())

    def savefig(fname=None, *args, **kwargs) -> None:
        _refuse_savefig(state, gcf(), fname)

    def _ax_call(name):
        def call(*args, **kwargs):
            return getattr(gca(), name)(*args, **kwargs)

        call.__name__ = name
        call.__qualname__ = name
        call.__doc__ = f"``plt.{name}(...)``: ``plt.gca().{name}(...)``."
        return call

    def title(label, *args, **kwargs):
        gca().set_title(label)

    def xlabel(label, *args, **kwargs):
        gca().set_xlabel(label)

    def ylabel(label, *args, **kwargs):
        gca().set_ylabel(label)

    def xlim(*args, **kwargs):
        if args or kwargs:
            gca().set_xlim(*args, **kwargs)
        return gca()._props.get("xlim") or (0.0, 1.0)

    def ylim(*args, **kwargs):
        if args or kwargs:
            gca().set_ylim(*args, **kwargs)
        return gca()._props.get("ylim") or (0.0, 1.0)

    def xscale(value, **kwargs):
        gca().set_xscale(value)

    def yscale(value, **kwargs):
        gca().set_yscale(value)

    def suptitle(t, **kwargs):
        gcf().suptitle(t)

    def colorbar(mappable=None, ax=None, **kwargs):
        gcf().colorbar(mappable, ax)

    def tight_layout(*args, **kwargs):
        return None

    def ticks(*args, **kwargs):
        return None

    def ion():
        return None

    def get_fignums():
        return sorted(f._number for f in state.open_figures())

    def fignum_exists(num):
        return num in get_fignums()

    def get_cmap(name=None, lut=None):
        return Colormap(_cmap_name(name or "viridis"))

    names = {
        "figure": figure, "subplots": subplots, "subplot": subplot, "gcf": gcf, "gca": gca,
        "close": close, "clf": clf, "cla": cla, "show": show, "pause": pause, "draw": draw,
        "savefig": savefig, "title": title, "xlabel": xlabel, "ylabel": ylabel, "xlim": xlim,
        "ylim": ylim, "xscale": xscale, "yscale": yscale, "suptitle": suptitle,
        "colorbar": colorbar, "tight_layout": tight_layout, "subplots_adjust": tight_layout,
        "xticks": ticks, "yticks": ticks, "text": ticks, "annotate": ticks,
        "tick_params": ticks, "ion": ion, "ioff": ion, "isinteractive": lambda: False,
        "get_fignums": get_fignums, "fignum_exists": fignum_exists, "get_cmap": get_cmap,
        "cm": _ColormapModule(), "style": _Style(),
        "rcParams": {"figure.figsize": [6.4, 4.8], "lines.linewidth": 1.5, "font.size": 10.0,
                     "axes.grid": False, "hist.bins": 10},
    }
    for name in ("plot", "scatter", "hist", "imshow", "matshow", "bar", "axhline", "axvline",
                 "legend", "grid", "axis", "semilogy", "semilogx", "loglog"):
        names[name] = _ax_call(name)
    state._line = line_now
    return names


def build_matplotlib(interp, pyplot_proxy) -> dict:
    """The names of ``matplotlib`` (its ``pyplot``, ``use()`` accepted as a no-op)."""

    def use(backend, *, force=True) -> None:
        return None

    def get_backend() -> str:
        return "gradstep"

    return {"pyplot": pyplot_proxy, "use": use, "get_backend": get_backend,
            "cm": _ColormapModule(),
            "rcParams": {"figure.figsize": [6.4, 4.8], "lines.linewidth": 1.5}}
