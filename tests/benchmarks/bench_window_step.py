"""A debugger step in the window, trigger to repaint: the worker against in process, one run.

Run: ``QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_window_step.py [steps]``.

Two windows, one whose scripts run in the worker process and one whose scripts run on its
controller's thread (``GRADSTEP_WORKER=0``), open the bundled XOR example and run to the loop;
then, alternately, each window's Step Over action is triggered and timed until every view has
its new state and the window has painted it (``repaint()``, the whole window, synchronously): the
figure a user feels after F10 (issue 15's goals: within 1.5x of in process, under 50 ms). The
default dock layout is used (the panels that are tabbed behind another are hidden, as on
screen). Each side's median over the steps, and the median of the per-step ratios.

Measured (2 shared cores, 2026-12-01, 60 steps): 45.2 ms in process, 45.2 ms through the worker
(load 0.5) before the controller published at rest at once and the panels behind a tab stopped
redrawing (a frame's wait, then the Training plots, the optimizer tree and the builder's ~70
verdicts at every step); after: 23.6 ms and 23.9 ms (ratio 1.01, median ratio 1.08, load 2.8),
36.0 and 34.1 ms at load 3-8. Of the worker's step alone see ``bench_worker.py``.
"""

from __future__ import annotations

import os
import statistics
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

EXAMPLE = ROOT / "resources" / "examples" / "11_xor_mlp_adam.gstep"
STEPS = 40


def _wait(window, timeout_ms: int = 30_000) -> None:
    if not window.controller.wait_idle(timeout_ms):
        raise TimeoutError("the window did not come to rest")


def make_window(in_worker: bool):
    from app.main_window import MainWindow

    os.environ["GRADSTEP_WORKER"] = "1" if in_worker else "0"
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, open_demo=False)
    window.resize(1400, 900)
    window.show()
    QApplication.processEvents()
    if not window.open_example(str(EXAMPLE)):
        raise RuntimeError(f"could not open {EXAMPLE}")
    _wait(window)
    window.actions_by_id["debug.step_over"].trigger()  # into the script
    _wait(window)
    return window


def step_seconds(window) -> float:
    """Step Over, to the window painted with the new state."""
    action = window.actions_by_id["debug.step_over"]
    QApplication.processEvents()
    start = time.perf_counter()
    action.trigger()
    _wait(window)
    window.repaint()
    return time.perf_counter() - start


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else STEPS
    app = QApplication.instance() or QApplication([])
    from engine.session.worker import SPARES, shutdown_spares

    try:
        here, there = make_window(False), make_window(True)
        SPARES.wait_ready()
        for _ in range(5):  # both windows' first-draw costs
            step_seconds(here), step_seconds(there)
        a, b = [], []
        for _ in range(steps):
            a.append(step_seconds(here))
            b.append(step_seconds(there))
        med = statistics.median
        ratios = [y / x for x, y in zip(a, b)]
        print(f"step over, trigger -> repainted ({steps} steps of the XOR example)")
        print(f"  in process {med(a) * 1e3:6.2f} ms   worker {med(b) * 1e3:6.2f} ms   "
              f"ratio of medians {med(b) / med(a):.2f}   median ratio {med(ratios):.2f}"
              "   (goals: < 1.5x, < 50 ms)")
        for window in (here, there):
            window.ask_before_discarding = False
            window.close()
            window.shutdown()
        app.processEvents()
    finally:
        shutdown_spares()


if __name__ == "__main__":
    main()
