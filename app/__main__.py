"""``gradstep [FILE]`` opens the window; ``gradstep run|export|record ...`` is the headless CLI.

The CLI path must not import Qt: a shell user on a machine without a display gets the engine's
answer, and a test checks that PySide6 stays out of ``sys.modules``. Without a display or Qt's
system libraries the window path prints what is missing and exits 3 (``app/qt_platform.py``).
"""

from __future__ import annotations

import sys
import time

STARTED = time.perf_counter()  # for the smoke test's and the benchmark's cold-start time
CLI_COMMANDS = ("run", "export", "record")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in CLI_COMMANDS:
        from engine.cli import main as cli_main

        return cli_main(argv)
    from engine.cli import check_window_argument  # a typo or a missing file, before any window

    refused = check_window_argument(argv)
    if refused is not None:
        return refused
    from .launch import run_window

    return run_window(argv, started=STARTED)


if __name__ == "__main__":
    sys.exit(main())
