"""Opening a large recording: a synthetic 100,000-node recorded backward (a script; prints).

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_record_open.py [--nodes 100000]
        [--no-window]

The recording comes from ``engine.record.synthetic.synthetic_recorded`` (a chain of ops in
``block{b}.layer{l}`` modules, a parameter every 4th op, residuals; 2 iterations, tiny arrays).
Phases, wall clock, one run: writing the file; ``engine.files.load`` (parse + validate);
``RecordedSession(gf)`` (the graph model and the timeline); ``session.graph()`` (the graph at
the current point); ``engine.graph.layout``; the panels' feed; then in the window (unless
``--no-window``): from ``controller.load_recorded`` to the graph's first paint, and a pan, a
zoom, a search and a fold/unfold, each to its next paint.

A 100,000-node recording is ~83 MB of indented JSON, over the 64 MB ``max_file_bytes`` a
``.gstep`` may have (``engine.files.limits``): the script writes the JSON itself and loads it
with that one limit raised.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, ROOT)

import engine.files.io as io
from engine.files import DEFAULT_LIMITS, load
from engine.graph import layout
from engine.record.player import RecordedSession
from engine.record.synthetic import synthetic_recorded
from engine.record.writer import graph_file


def _timed(label, fn, figures):
    start = time.perf_counter()
    out = fn()
    figures[label] = time.perf_counter() - start
    print(f"{label:28s} {figures[label]:8.2f} s", flush=True)
    return out


def engine_phases(nodes: int, path: str, figures: dict):
    rec = synthetic_recorded(nodes, iterations=2)
    gf = graph_file(rec, title=f"synthetic {nodes}")

    def write():
        text = io.to_text(io.graph_file_to_json(gf))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return len(text)

    size = _timed("write file", write, figures)
    print(f"{'file size':28s} {size / 1e6:8.1f} MB")
    limits = dataclasses.replace(DEFAULT_LIMITS, max_file_bytes=1 << 28)
    loaded = _timed("load (parse + validate)", lambda: load(path, limits=limits), figures)
    session = _timed("RecordedSession(gf)", lambda: RecordedSession(loaded), figures)
    graph = _timed("session.graph()", session.graph, figures)
    _timed("layout", lambda: layout(graph), figures)
    _timed("panels_feed", session.panels_feed, figures)
    return loaded


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
