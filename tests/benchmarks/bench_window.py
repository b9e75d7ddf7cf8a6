"""Window benchmarks; prints numbers.

Run: ``QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_window.py``.

- file open to first full paint, 1,000 and 10,000 nodes (goals 0.3 s and 1.5 s), each with the
  warm spare worker ready: the whole path (load the file, run the script on the worker, build
  the graph and its layout, build the scene, paint), with where it went (the session's run,
  build_graph, layout, the scene build, fitting and the far-zoom picture, the first paint, and
  the rest: the window's other views and the worker hand-offs), and the view's share alone
  (scene build + first paint of a ready graph). Measured 2026-12-01 (load 0.5-1.0): 10,000 nodes
  1.20 s through the worker in this file's run, 0.94-1.58 s over 18 more opens (mostly
  1.0-1.35 s; the first open of a fresh window process is the slower end), 1.05 s in process
  (``GRADSTEP_WORKER=0``); before this day's changes 1.17-1.78 s, mostly 1.4-1.65 s. What
  changed: the whole graph's layout (0.1 s) is not made when the view draws its repeated runs
  folded (a lazy layout), the runs are found once, the worker's imports are frozen out of its
  collections and the window unpickles with the collector paused (a 3 MB reply: 160 -> 80 ms),
  a long backward's steps cross as two columns, and the next spare starts after the window has
  drawn the reply. What is left is the worker's run (0.5-0.6 s:
  5,000 statements, each recorded for Step Back, and 10,000 backward nodes) and its graph build
  (0.2 s). 1,000 nodes 0.17-0.18 s (0.15 s in process);
- fit-all repaint at 10,000 nodes (goal 150 ms);
- redraw after one backward step at 1,000 nodes (goals: 16 ms at 1:1, 50 ms fit-all);
- cold start of the window (goal 1.5 s without torch): process start to the first event-loop turn
  after show(), and to the demo paused and painted.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("GRADSTEP_RECOVERY_DIR", tempfile.mkdtemp(prefix="gradstep-bench-"))
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def chain_script(ops: int) -> str:
    """A script whose graph has about ``2 * ops`` nodes: a long chain with a few named tensors."""
    return (
        "import torch\n"
        "x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)\n"
        "y = x\n"
        f"for i in range({ops}):\n"
        "    y = y * 1.0001 + 0.001\n"
        "loss = y.sum()\n"
        "loss.backward()\n"
    )


def paint(widget) -> float:
    app = QApplication.instance()
    app.processEvents()
    start = time.perf_counter()
    widget.repaint()
    return time.perf_counter() - start


class _Stages:
    """Where the open path's time goes: wraps the session command, build_graph, layout and the
    view's show_graph/_rebuild for the duration of one measurement (the code itself is
    untouched; the wrappers cost microseconds)."""

    def __init__(self) -> None:
        import engine.graph as graph_pkg
        from app.graph_view import GraphView
        from engine.session import Session

        self.times: dict[str, float] = {}
        self._undo = []
        for owner, name, label in ((Session, "continue_", "run"),
                                   (graph_pkg, "build_graph", "build_graph"),
                                   (graph_pkg, "layout", "layout"),
                                   (GraphView, "show_graph", "show_graph"),
                                   (GraphView, "_rebuild", "scene build")):
            self._wrap(owner, name, label)

    def _wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)
        times = self.times

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                times[label] = times.get(label, 0.0) + time.perf_counter() - start

        setattr(owner, name, timed)
        self._undo.append((owner, name, original))

    def close(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


def bench_open(app, settings, ops: int) -> tuple[float, float, dict]:
    from app.main_window import MainWindow

    window = MainWindow(settings, open_demo=False)
    window.resize(1440, 900)
    window.show()
    window.ensure_panels()
    app.processEvents()
    path = Path(tempfile.mkdtemp()) / f"chain{ops}.py"
    path.write_text(chain_script(ops))
    stages = _Stages()
    try:
        start = time.perf_counter()
        window.open_path(str(path))
        window.actions_by_id["debug.continue"].trigger()
        window.controller.wait_idle(600_000)
        painted = time.perf_counter()
        window.graph_view.canvas.viewport().repaint()
        end = time.perf_counter()
    finally:
        stages.close()
    total = end - start
    parts = dict(stages.times)
    parts["first paint"] = end - painted
    # show_graph includes the scene build; the rest of it is fitting and the far-zoom picture.
    parts["fit + far picture"] = parts.pop("show_graph", 0.0) - parts.get("scene build", 0.0)
    parts["other"] = total - sum(parts.values())
    nodes = window.graph_view.graph.number_of_nodes()
    window.ask_before_discarding = False
    window.close()
    window.shutdown()
    window.deleteLater()
    app.processEvents()
    return total, nodes, parts


def bench_view(app, n: int) -> dict:
    from app.graph_view import GraphView
    from engine.graph.layout import layout
    from engine.graph.synthetic import trace_like_dag

    graph = trace_like_dag(n)
    lay = layout(graph)
    view = GraphView()
    view.resize(1100, 800)
    view.show()
    app.processEvents()
    start = time.perf_counter()
    view.show_graph(graph, lay)
    build = time.perf_counter() - start
    first = paint(view.canvas.viewport())
    fits = []
    for _ in range(5):
        view.canvas.fit_all()
        fits.append(paint(view.canvas.viewport()))
    view.close()
    view.deleteLater()
    app.processEvents()
    return {"build": build, "first_paint": first, "fit_repaint": statistics.median(fits)}


def bench_backward_step(app, ops: int = 330) -> dict:
    """Redraw after one backward step on a ~1,000-node graph, at 1:1 and fit-all."""
    import engine as torch
    from app.graph_view import GraphView
    from engine.graph.focus import last_executed as _last_executed
    from engine.graph.layout import layout
    from engine.graph.model import build_graph

    x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x
    for _ in range(ops):
        y = (y * w).tanh() + 0.01
    loss = y.sum()
    names = {"x": x, "w": w, "y": y, "loss": loss}
    steps = list(loss.backward_steps(retain_graph=True))
    k = len(steps) // 2
    before = build_graph(names, steps[:k])
    lay = layout(before)
    after = build_graph(names, steps[:k + 1], previous=before)
    before = build_graph(names, steps[:k], previous=after)  # as the controller builds them
    view = GraphView()
    view.resize(1100, 800)
    view.show()
    view.show_graph(before, lay, executing=_last_executed(before))
    app.processEvents()
    results = {"nodes": before.number_of_nodes()}
    for mode in ("1:1", "fit-all"):
        times = []
        for i in range(6):
            graph_a, graph_b = (before, after) if i % 2 == 0 else (after, before)
            view.show_graph(graph_a, lay, executing=_last_executed(graph_a))
            if mode == "1:1":
                view.canvas.user_moved = True
                view.canvas.resetTransform()
                view.canvas.centerOn(view.nodes[view._visible_node(_last_executed(graph_a))])
            else:
                view.canvas.fit_all()
            app.processEvents()
            start = time.perf_counter()
            view.show_graph(graph_b, lay, executing=_last_executed(graph_b))
            app.processEvents()  # Qt repaints what the changed items dirtied, as in the app
            times.append(time.perf_counter() - start)
        results[mode] = statistics.median(times)
    view.close()
    view.deleteLater()
    app.processEvents()
    return results


def bench_cold_start() -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=tempfile.mkdtemp(prefix="gradstep-cfg-"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    out = {}
    for attempt in range(3):  # the first run writes the bytecode caches
        done = subprocess.run([sys.executable, "-m", "app", "--smoke-test"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        match = re.search(r"shown_after=([\d.]+)s ready_after=([\d.]+)s", done.stdout)
        if match and attempt:
            out.setdefault("shown", []).append(float(match.group(1)))
            out.setdefault("ready", []).append(float(match.group(2)))
    return {k: min(v) for k, v in out.items()}


def main() -> None:
    app = QApplication.instance() or QApplication([])
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "bench.ini"), QSettings.Format.IniFormat)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for n in (1000, 10000):
        r = bench_view(app, n)
        print(f"view, {n:>6} nodes: scene build {r['build'] * 1000:7.1f} ms, first paint "
              f"{r['first_paint'] * 1000:7.1f} ms, "
              f"fit-all repaint {r['fit_repaint'] * 1000:6.1f} ms")
    from engine.session.worker import SPARES

    for ops in (500, 5000):
        # as a user opens a file in a window that has been up a moment: its warm worker is
        # ready (the cold start is measured below); opened back to back, the second file's
        # worker would still be starting
        SPARES.wait_ready(start=True)
        total, nodes, parts = bench_open(app, settings, ops)
        print(f"file open to first full paint, {nodes:>6} nodes: {total:6.2f} s "
              f"(load, run, graph, layout, scene, paint)")
        print("    " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in parts.items()))
    r = bench_backward_step(app)
    print(f"redraw after one backward step, {r['nodes']} nodes: 1:1 {r['1:1'] * 1000:6.1f} ms, "
          f"fit-all {r['fit-all'] * 1000:6.1f} ms")
    r = bench_cold_start()
    if r:
        print(f"cold start: window shown after {r['shown']:.2f} s, demo paused and painted after "
              f"{r['ready']:.2f} s")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
