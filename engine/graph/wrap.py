"""Long drawings wrapped into side-by-side bands of layers, a snake, to fill a view's shape.

A layered drawing of an autograd graph is as tall as its longest path: 2,000 chained ops make a
column 2,000 boxes high, a hairline at "fit". :func:`wrap_layout` cuts the layers into ``k``
consecutive bands and puts the bands side by side, every other one upside down, so the path runs
down the first band, up the second, down the third: the edge from one band to the next is short
and horizontal, and the drawing's width / height comes near the view's. Cuts go where the fewest
edges cross between two layers (between two ops of a chain, not through a fan of weights). Nodes
keep their layer and order (``layers``, ``order`` are the unwrapped ones); only the coordinates
move, every point of a polyline with its layer. Pure numpy over the points: fast and
deterministic.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .layout import DUMMY_WIDTH, LAYER_SPACING, NODE_GAP, NODE_HEIGHT, NODE_WIDTH, Layout

MIN_WRAP_LAYERS = 16
"""Shorter drawings stay one band: they fit well enough."""
BAND_GAP = 2 * NODE_GAP + NODE_WIDTH / 2
"""Space between two bands (room for the turn of the snake)."""
MAX_BANDS = 400


def wrap_layout(lay: Layout, aspect: float, graph=None, *,
                min_layers: int = MIN_WRAP_LAYERS) -> Layout:
    """``lay`` with its layers wrapped into bands so that width / height comes near ``aspect``.

    Parameters
    ----------
    lay : Layout
        From :func:`engine.graph.layout`.
    aspect : float
        The wanted width / height, in layout units.
    graph : networkx.DiGraph, optional
        The laid-out graph, to redo ``groups`` (module boxes) from the new positions.

    Returns
    -------
    Layout
        ``lay`` itself when it is already wide enough or short; else a copy with ``bands`` > 1.
    """
    n_layers = len(lay.layers)
    if n_layers < min_layers or not lay.positions or aspect <= 0:
        return lay
    ids = list(lay.positions)
    nodes = np.array([lay.positions[i] for i in ids], dtype=np.float64).reshape(-1, 2)
    keys = list(lay.edges)
    lines = [lay.edges[k] for k in keys]
    counts = np.fromiter((len(line) for line in lines), dtype=np.int64, count=len(lines))
    flat = np.array([p for line in lines for p in line], dtype=np.float64).reshape(-1, 2)
    xy = np.concatenate([nodes, flat])
    layer = np.rint((xy[:, 1] - NODE_HEIGHT / 2) / LAYER_SPACING).astype(np.int64)
    np.clip(layer, 0, n_layers - 1, out=layer)
    half = np.full(len(xy), DUMMY_WIDTH / 2)
    half[: len(nodes)] = NODE_WIDTH / 2
    lo = np.full(n_layers, np.inf)
    hi = np.full(n_layers, -np.inf)
    np.minimum.at(lo, layer, xy[:, 0] - half)
    np.maximum.at(hi, layer, xy[:, 0] + half)
    empty = ~np.isfinite(lo)
    lo[empty], hi[empty] = 0.0, 0.0
    width, height = float(hi.max() - lo.min()), n_layers * LAYER_SPACING
    if width / height >= aspect / 2:
        return lay
    # Edges crossing the gap below each layer: a cut there turns that many edges.
    cost = np.zeros(n_layers, dtype=np.int64)
    if len(flat):
        line_layer = layer[len(nodes):]
        starts = np.concatenate(([0], np.cumsum(counts)))
        step = np.ones(len(flat), dtype=bool)
        step[starts[1:] - 1] = False  # a line's last point starts no segment
        a, b = line_layer[:-1][step[:-1]], line_layer[1:][step[:-1]]
        top = np.minimum(a, b)
        np.add.at(cost, top[a != b], 1)
    layer_width = hi - lo
    typical = float(np.median(layer_width)) + BAND_GAP
    guess = int(round(np.sqrt(aspect * height / max(typical, 1.0))))
    best = None
    for k in range(max(2, guess - 3), min(MAX_BANDS, n_layers // 2, guess + 3) + 1):
        starts_k = _cuts(n_layers, k, cost)
        band_w, rows = _band_sizes(starts_k, lo, hi, n_layers)
        total_w = float(band_w.sum() + BAND_GAP * (len(band_w) - 1))
        miss = abs(np.log(total_w / (rows * LAYER_SPACING) / aspect))
        if best is None or miss < best[0] - 1e-9:
            best = (miss, starts_k)
    if best is None:
        return lay
    band_start = best[1]
    return _apply(lay, ids, keys, counts, xy, layer, lo, hi, band_start, n_layers, graph)


def _cuts(n_layers: int, k: int, cost: np.ndarray) -> np.ndarray:
    """First layer of each of ``k`` bands: near equal lengths, moved to cheap gaps."""
    per = n_layers / k
    window = max(0, int(per // 5))
    starts = [0]
    for i in range(1, k):
        ideal = int(round(i * per))
        low, high = max(starts[-1] + 1, ideal - window), min(n_layers - 1, ideal + window)
        if low > high:
            continue
        candidates = np.arange(low, high + 1)
        # A cut before layer c crosses the gap below c - 1; ties go to the even split.
        score = cost[candidates - 1] * (2 * window + 2) + np.abs(candidates - ideal)
        starts.append(int(candidates[np.argmin(score)]))
    return np.asarray(starts, dtype=np.int64)


def _band_sizes(starts, lo, hi, n_layers):
    band_lo = np.minimum.reduceat(lo, starts)
    band_hi = np.maximum.reduceat(hi, starts)
    lengths = np.diff(np.append(starts, n_layers))
    return band_hi - band_lo, int(lengths.max())


def _apply(lay, ids, keys, counts, xy, layer, lo, hi, band_start, n_layers, graph) -> Layout:
    band_lo = np.minimum.reduceat(lo, band_start)
    band_hi = np.maximum.reduceat(hi, band_start)
    band_w = band_hi - band_lo
    offset = np.concatenate(([0.0], np.cumsum(band_w + BAND_GAP)[:-1]))
    ends = np.append(band_start[1:], n_layers)
    band_of_layer = np.searchsorted(band_start, np.arange(n_layers), side="right") - 1
    local = np.arange(n_layers) - band_start[band_of_layer]
    odd = band_of_layer % 2 == 1
    length = (ends - band_start)[band_of_layer]
    local = np.where(odd, length - 1 - local, local)  # every other band runs upwards
    new_y_of_layer = local * LAYER_SPACING + NODE_HEIGHT / 2
    band = band_of_layer[layer]
    x = xy[:, 0] - band_lo[band] + offset[band]
    y = new_y_of_layer[layer]
    n = len(ids)
    positions = dict(zip(ids, zip(x[:n].tolist(), y[:n].tolist())))
    points = list(zip(x[n:].tolist(), y[n:].tolist()))
    bounds = np.concatenate(([0], np.cumsum(counts))).tolist()
    edges = {key: points[a:b] for key, a, b in zip(keys, bounds[:-1], bounds[1:])}
    groups = lay.groups
    if graph is not None:
        from .layout import _boxes

        # from the new coordinates as they are (a dict lookup per node took longer)
        attrs = graph._node
        groups = _boxes(ids, [attrs[i].get("group") if i in attrs else None for i in ids],
                        x[:n], y[:n])
    size = (float(offset[-1] + band_w[-1]), float(y.max() + NODE_HEIGHT / 2))
    return replace(lay, positions=positions, edges=edges, groups=groups, size=size,
                   bands=len(band_start))
