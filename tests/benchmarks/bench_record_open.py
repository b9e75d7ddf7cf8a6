"""Opening a large recording: a synthetic 100,000-node recorded backward (a script; prints).

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_record_open.py [--nodes 100000]
        [--no-window]

The recording comes from ``engine.record.synthetic.synthetic_recorded`` (a chain of ops in
``block{b}.layer{l}`` modules, a parameter every 4th op, residuals; 2 iterations, tiny arrays).
Phases, one run, wall clock and (in brackets) this process's CPU time, which a busy shared
machine inflates less: writing the file; ``engine.files.load`` (parse + validate);
``RecordedSession(gf)`` (the graph model and the timeline); ``session.graph()`` (the graph at
the current point); ``engine.graph.layout`` (as the controller calls it: for a big graph with
modules, computed when first read); the layout of the graph with its innermost modules folded
(what the window draws first); the panels' feed; then in the window (unless ``--no-window``):
from ``controller.load_recorded`` to the graph's first paint, three replay steps (``go_to``
the last points), and a pan, a zoom, a search and a fold/unfold, each to its next paint. Each
phase also says how long the cyclic garbage collector ran in it (a 100,000-node recording is
1.3 million objects: see ``engine/gc_policy.py``).

Measured 2026-12-01 at 100,000 nodes, one run each on a 2-core machine that six other jobs
shared (load average 6-8, so wall clock is two to three times CPU), CPU time, the last round's
figures in brackets: load 0.7-1.0 s (0.6-0.9 s); ``RecordedSession`` 0.7-1.2 s (0.8 s); ``graph()``
0.12-0.17 s; the folded layout 0.3-0.5 s; window to first paint 2.3 s in two runs, 3.3 s in a
third on a busier minute (3.1-4.0 s; 3.3 s at the start of this round; wall 4.3-8.4 s): the
second fold of the same structure is a ``refold``, Gradient Buffers lays out only the heatmaps
its height has room for (3, not 24), the console counts warnings from ``timeline.marked``;
three replay steps in the last backward (``controller.go_to``) 3.8-5.7 s, most of it the
Gradient Buffers rows (``panels_model.buffer_rows`` compares 50,000 grads per step; the graph's
share, refold and far picture, is ~0.2 s a step); pan 0.03 s, zoom 0.01 s, search 0.6-1.0 s,
fold all 0.45-0.8 s, unfold all 2.8-3.8 s (3.5-4.2 s). At 20,000 nodes the first paint takes
1.0 s CPU.

Format version 2 writes the recording column-wise: 100,000 nodes take ~16 MB (83 MB of indented
JSON in version 1), within the 64 MB ``max_file_bytes`` of ``engine.files.limits``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, ROOT)

import engine.files.io as io
from engine.files import DEFAULT_LIMITS, load
from engine.graph import fold, layout
from engine.record.player import RecordedSession
from engine.record.synthetic import synthetic_recorded
from engine.record.writer import graph_file

_collecting = [0.0, None]  # seconds in the cyclic collector so far, the running one's start


def _count_collections(phase, info) -> None:
    if phase == "start":
        _collecting[1] = time.perf_counter()
    elif _collecting[1] is not None:
        _collecting[0] += time.perf_counter() - _collecting[1]


gc.callbacks.append(_count_collections)


def _timed(label, fn, figures):
    start, cpu, collected = time.perf_counter(), time.process_time(), _collecting[0]
    out = fn()
    figures[label] = time.perf_counter() - start
    print(f"{label:32s} {figures[label]:8.2f} s  ({time.process_time() - cpu:.2f} s CPU, "
          f"{_collecting[0] - collected:.2f} s collecting)", flush=True)
    return out


def engine_phases(nodes: int, path: str, figures: dict):
    rec = synthetic_recorded(nodes, iterations=2)
    gf = graph_file(rec, title=f"synthetic {nodes}")

    def write():
        text = io.to_text(io.graph_file_to_json(gf))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return len(text.encode("utf-8"))

    size = _timed("write file", write, figures)
    limit = DEFAULT_LIMITS.max_file_bytes / 1e6
    print(f"{'file size':32s} {size / 1e6:8.1f} MB (limit {limit:.0f})")
    # a larger file still opens here, so that the phases after it can be measured
    limits = dataclasses.replace(DEFAULT_LIMITS, max_file_bytes=max(size + 1, 1 << 26))
    loaded = _timed("load (parse + validate)", lambda: load(path, limits=limits), figures)
    session = _timed("RecordedSession(gf)", lambda: RecordedSession(loaded), figures)
    graph = _timed("session.graph()", session.graph, figures)
    _timed("layout (as the controller)", lambda: layout(graph), figures)
    _timed("layout, modules folded", lambda: _folded_layout(graph), figures)
    _timed("panels_feed", session.panels_feed, figures)
    return loaded


def _folded_layout(graph):
    """The graph with its innermost module groups folded, laid out: the window's first picture
    of a big graph (app/graph_view.py folds groups of 3 nodes or more)."""
    sizes: dict = {}
    for _, group in graph.nodes(data="group"):
        if group:
            sizes[group] = sizes.get(group, 0) + 1
    parents = {g.rsplit(".", k)[0] for g in sizes for k in range(1, g.count(".") + 1)}
    innermost = {g for g in sizes if sizes[g] >= 3 and g not in parents}
    return layout(fold(graph, innermost)).positions


def window_phases(gf, figures: dict) -> None:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = QSettings(os.path.join(tempfile.mkdtemp(), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, open_demo=False)
    window.resize(1400, 900)
    window.show()
    deadline = time.perf_counter() + 30
    while not window.panels and time.perf_counter() < deadline:
        app.processEvents()
    view = window.graph_view
    canvas = view.canvas
    painted = [0]
    def paint_count():
        return painted[0]

    from PySide6.QtCore import QEvent, QObject

    class PaintSpy(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                painted[0] += 1
            return False

    spy = PaintSpy()
    canvas.viewport().installEventFilter(spy)

    def until(cond, limit=120.0):
        end = time.perf_counter() + limit
        while not cond() and time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.001)

    def idle():
        return not window.controller.busy and window.controller.snapshot.graph is not None

    def first_paint():
        before = paint_count()
        window.controller.load_recorded(gf, path="synthetic.gstep")
        until(lambda: idle() and view.graph is not None
              and view.graph.graph.get("recorded", False))
        canvas.viewport().update()
        until(lambda: paint_count() > before)

    _timed("window: open to first paint", first_paint, figures)

    def repaint(action):
        def run():
            before = paint_count()
            action()
            canvas.viewport().update()
            until(lambda: paint_count() > before)
        return run

    def steps(points):
        def run():
            for point in points:
                before = paint_count()
                window.controller.go_to(point)
                until(lambda p=point: idle() and window.controller.current_point() == p)
                canvas.viewport().update()
                until(lambda b=before: paint_count() > b)
        return run

    # replay steps in the last backward: the graph at the next point, the same structure
    end = len(window.controller.snapshot.timeline) - 1
    _timed("window: 3 replay steps", steps([end - 3, end - 2, end - 1]), figures)
    bar = canvas.horizontalScrollBar()
    _timed("window: pan", repaint(lambda: bar.setValue(bar.value() + 400)), figures)
    _timed("window: zoom in", repaint(lambda: canvas.zoom_by(1.5)), figures)
    _timed("window: search 'w8'", repaint(lambda: (view.search.setText("layer3.w8"),
                                                    view.find_next())), figures)
    _timed("window: fold all", repaint(lambda: view.set_all_folded(True)), figures)
    _timed("window: unfold all", repaint(lambda: view.set_all_folded(False)), figures)
    window.close()
    app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--no-window", action="store_true")
    args = parser.parse_args()
    figures: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        gf = engine_phases(args.nodes, os.path.join(folder, "synthetic.gstep"), figures)
        if not args.no_window:
            window_phases(gf, figures)


if __name__ == "__main__":
    main()
