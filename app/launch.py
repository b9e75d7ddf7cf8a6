"""Starting the window: the QApplication, the command line, and the smoke test."""

from __future__ import annotations

import argparse
import sys
import time


def _parse(argv: list[str]) -> argparse.Namespace:
    from engine.cli import commands_epilog

    parser = argparse.ArgumentParser(
        prog="gradstep", description="A debugger for autograd: opens the window.",
        epilog=commands_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="a .gstep graph file or a .py script to open")
    parser.add_argument("--smoke-test", action="store_true",
                        help="open the window, let it paint, close it, exit 0 (for CI)")
    return parser.parse_args(argv)


def run_window(argv: list[str], *, started: float | None = None) -> int:
    started = time.perf_counter() if started is None else started
    args = _parse(argv)
    from .qt_platform import EXIT_NO_DISPLAY, message, problem, problem_from_import_error

    # Qt aborts the process when its platform plugin cannot start: say why before it tries.
    found = problem()
    if found is not None:
        print(message(found), file=sys.stderr)
        return EXIT_NO_DISPLAY
    try:
        from PySide6.QtCore import Qt, QTimer
        from PySide6.QtGui import QGuiApplication
        from PySide6.QtWidgets import QApplication
    except ImportError as e:  # QtGui's own shared libraries (libEGL, libfontconfig, ...)
        print(message(problem_from_import_error(e)), file=sys.stderr)
        return EXIT_NO_DISPLAY

    # Fractional scale factors (150 %) render crisply instead of being rounded.
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setApplicationName("gradstep")
    app.setOrganizationName("gradstep")
    app.setStyle("Fusion")

    from .main_window import MainWindow

    window = MainWindow(open_demo=args.file is None)
    from engine.gc_policy import settle_after_imports

    settle_after_imports()  # Qt's objects out of every later collection (see engine/gc_policy.py)
    # ... and pyqtgraph's, once the panels (docked just after the first paint) have imported it.
    QTimer.singleShot(1000, settle_after_imports)
    if args.file:
        window.open_path(args.file)
    window.show()
    if args.smoke_test:
        def finish() -> None:
            deadline = time.perf_counter() + 20
            while window.controller.session is None and time.perf_counter() < deadline:
                app.processEvents()  # the demo opens just after the window shows
            ok = window.isVisible() and window.controller.wait_idle(20000)
            window.repaint()  # the first full paint with the demo's graph
            ready = time.perf_counter() - started
            shown = (window.first_painted_at or time.perf_counter()) - started
            print(f"gradstep smoke test: window shown={window.isVisible()} "
                  f"title={window.windowTitle()!r} idle={ok} shown_after={shown:.3f}s "
                  f"ready_after={ready:.3f}s", flush=True)
            window.ask_before_discarding = False
            window.close()
            app.exit(0 if ok else 1)

        QTimer.singleShot(0, finish)
    code = app.exec()
    window.shutdown()
    window.deleteLater()
    return code
