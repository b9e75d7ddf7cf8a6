"""The headless CLI: ``gradstep run`` and ``gradstep export``, without a display and without Qt.

``gradstep run FILE [--iterations N] [--break-on nan] [--format text|json]`` runs a graph file or
a ``.py`` script in a debugger session and prints what the window would show where it ends or
breaks: named tensors (value, grad, grad_fn, flags), optimizer state, the loss per iteration,
warnings with their lines and, after an error, its explanation. A file recorded from real
PyTorch (``engine.record``) runs nothing: it reports the recorded graph (PyTorch's node names with
counts), each iteration's loss and each parameter's gradient norm (``engine/record/report.py``).

``gradstep export FILE --dot OUT | --trace OUT`` runs it and writes the graph as Graphviz DOT or
the session's events as a JSON trace; a recording's ``--dot`` is its recorded graph (it has no
events to trace).

Exit codes: 0 ok, 1 the script failed (``FILE:LINE:COL: kind: message`` on stderr, column
1-based, then the explanation), 2 usage error, missing or malformed file (``gradstep nosuch``:
"no such file or command", before any window), 130 Ctrl+C, 141 stdout's reader left
(``gradstep run ... | head``: quietly, no traceback). A run
that goes on for seconds says so on stderr (statements so far, and the limit that ends it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

import numpy as np

EXIT_OK = 0
EXIT_SCRIPT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # as a shell reports a command ended by Ctrl+C
EXIT_BROKEN_PIPE = 141  # as a shell reports a command its pipe's reader left (SIGPIPE)

BREAK_CHOICES = ("nan", "inf", "backward", "zero_grad", "step")
# A progress bar is worth drawing only for runs of at least this many iterations.
_PROGRESS_MIN_ITERATIONS = 10
# A run that has printed nothing for this long says it is still going (then every _NOTE_EVERY s):
# the debugger session keeps every statement for stepping back, so a runaway loop takes minutes
# to reach the statement limit.
_NOTE_AFTER = 3.0
_NOTE_EVERY = 10.0

# The subcommands, each with its one line (``gradstep --help`` of the window lists them too).
COMMANDS = {
    "run": "run a .gstep or .py file and print the final state",
    "record": "run your own PyTorch script, unchanged and unsandboxed, and record its first "
              "iterations (gradstep record --help)",
    "export": "run a file and export its graph or event trace",
}


def commands_epilog() -> str:
    """The subcommands as a help text's epilog (``gradstep --help`` of the window)."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"  gradstep {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    return "commands (no display needed; gradstep COMMAND --help for each):\n" + "\n".join(lines)


class _FileProblem(Exception):
    """The file is missing, unreadable or malformed (exit code 2)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradstep", description="Debug autograd scripts.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help=COMMANDS["run"])
    run.add_argument("file")
    run.add_argument("--iterations", type=int, metavar="N",
                     help="stop after N iterations of the training loop")
    run.add_argument("--break-on", action="append", choices=BREAK_CHOICES, default=[],
                     help="pause (and report) at the first NaN/Inf, backward(), zero_grad() or "
                          "optimizer.step()")
    run.add_argument("--format", choices=("text", "json"), default="text")
    sub.add_parser("record", add_help=False,  # parsed by engine/record/command.py
                   help=COMMANDS["record"])
    export = sub.add_parser("export", help=COMMANDS["export"])
    export.add_argument("file")
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument("--dot", metavar="OUT", help="write the graph as Graphviz DOT")
    target.add_argument("--trace", metavar="OUT", help="write the session's events as JSON")
    return parser


# -- loading ---------------------------------------------------------------------------------------

def _load(path: str, graph_file=None):
    """The script, seed and limits of ``path`` (a ``.gstep`` graph file or a ``.py`` script)."""
    graph_file = _graph_file(path) if graph_file is None else graph_file
    limits = None
    if graph_file.settings.limits:
        from .script import Limits

        limits = Limits(**graph_file.settings.limits)
    return graph_file.script, graph_file.settings.seed, limits, graph_file.state


def _graph_file(path: str):
    """``path`` loaded as a GraphFile (a ``.py`` script gives one holding just the script)."""
    p = Path(path)
    if not p.exists():
        raise _FileProblem(f"{path}: no such file")
    if p.is_dir():
        raise _FileProblem(f"{path}: is a directory")
    from . import files

    try:
        graph_file = files.load(p)
    except files.GraphFileError as e:
        raise _FileProblem(str(e)) from None
    except OSError as e:
        raise _FileProblem(f"{path}: {e.strerror or e}") from None
    return graph_file


def _session(path: str, graph_file=None):
    from .session import Session

    source, seed, limits, state = _load(path, graph_file)
    return Session(source, seed=seed, limits=limits, filename=path, resume=state)


# -- reporting -------------------------------------------------------------------------------------

def _json_number(x: float) -> Any:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _array_json(a: np.ndarray | None) -> Any:
    if a is None:
        return None
    if a.dtype.kind in "fc":
        flat = [_json_number(float(v)) for v in a.ravel()]
        return np.array(flat, dtype=object).reshape(a.shape).tolist() if a.ndim else flat[0]
    return a.tolist()


def _array_text(a: np.ndarray, indent: int = 10) -> str:
    text = np.array2string(a, precision=4, separator=", ", threshold=24, max_line_width=88)
    return text.replace("\n", "\n" + " " * indent)


def report(session, path: str, stop_reason: str | None = None) -> dict:
    """What the window would show now, as plain data (also the ``--format json`` output)."""
    snap = session.snapshot()
    tensors = []
    for name, rec in (snap.tensors.items() if snap is not None else ()):
        tensors.append({
            "name": name, "shape": list(rec.shape), "dtype": rec.dtype,
            "value": _array_json(rec.value), "grad": _array_json(rec.grad),
            "grad_fn": rec.grad_fn, "is_leaf": rec.is_leaf,
            "requires_grad": rec.requires_grad, "retains_grad": rec.retains_grad,
        })
    optimizers: dict = {}
    for (opt, param, key), value in (snap.optimizer.items() if snap is not None else ()):
        if isinstance(value, np.ndarray):
            value = _array_json(value)
        elif isinstance(value, float):
            value = _json_number(value)
        optimizers.setdefault(opt, {}).setdefault(param, {})[key] = value
    position = session.position
    out = {
        "file": path,
        "status": session.status,
        "stopped_at": None,
        "counters": session.counters.as_dict(),
        "tensors": tensors,
        "optimizers": optimizers,
        "losses": [{"iteration": k, "loss": _json_number(v)} for k, v in session.losses],
        "warnings": [{"line": w.line, "kind": w.kind, "message": w.message}
                     for w in session.warnings],
        "console": list(session.console),
        "figures": _figures_json(session),
        "error": None,
        "explanation": None,
    }
    if session.status == "paused" and position is not None:
        out["stopped_at"] = {"line": position.line, "iteration": position.iteration,
                             "reason": stop_reason}
    if session.error is not None:
        e = session.error
        out["error"] = {"kind": e.kind, "line": e.line, "col": e.col, "message": e.message}
    if session.explanation is not None:
        x = session.explanation
        out["explanation"] = {"kind": x.kind, "title": x.title, "text": x.text,
                              "fixes": list(x.fixes), "subject": x.subject, "line": x.line}
    return out


def _figures_json(session) -> list:
    """The figures the script's matplotlib.pyplot showed (what the Plots panel draws)."""
    figures = getattr(session, "figures", ())
    if not figures:
        return []
    from .plots import figure_json

    return [figure_json(f) for f in figures]


def _flags(t: dict) -> str:
    flags = ["leaf" if t["is_leaf"] else "non-leaf"]
    if t["requires_grad"]:
        flags.append("requires_grad")
    if t["retains_grad"]:
        flags.append("retains_grad")
    if t["grad_fn"]:
        flags.append(f"grad_fn={t['grad_fn']}")
    return " ".join(flags)


def _print_text(rep: dict, snap, out: TextIO) -> None:
    c = rep["counters"]
    head = f"{rep['file']}: {rep['status']}"
    if rep["stopped_at"]:
        s = rep["stopped_at"]
        head += f" at line {s['line']}" + (f" ({s['reason']})" if s["reason"] else "")
    print(head, file=out)
    print(f"  backward calls: {c['backward']}  zero_grad calls: {c['zero_grad']}  "
          f"optimizer steps: {c['step']}"
          + (f"  iteration: {c['iteration']}" if c["iteration"] is not None else ""), file=out)
    if rep["tensors"]:
        print("\nTensors", file=out)
        for t in rep["tensors"]:
            rec = snap.tensors[t["name"]]
            print(f"  {t['name']}: {t['dtype']} {list(rec.shape)}  {_flags(t)}", file=out)
            print(f"    value {_array_text(rec.value)}", file=out)
            grad = "None" if rec.grad is None else _array_text(rec.grad)
            print(f"    grad  {grad}", file=out)
    if rep["optimizers"]:
        for opt, params in rep["optimizers"].items():
            print(f"\nOptimizer {opt}", file=out)
            for param, state in params.items():
                print(f"  {param}:", file=out)
                for key in state:
                    value = snap.optimizer[(opt, param, key)]
                    text = (_array_text(value, 7 + len(key)) if isinstance(value, np.ndarray)
                            else repr(value))
                    print(f"    {key} = {text}", file=out)
    if rep["losses"]:
        print("\nLoss per iteration", file=out)
        for item in rep["losses"]:
            print(f"  {item['iteration']:>5}  {item['loss']}", file=out)
    if rep.get("figures"):
        print("\nFigures (what plt.show() would have drawn; the window's Plots panel draws them)",
              file=out)
        for fig in rep["figures"]:
            for line in fig["summary"]:
                print(f"  {line}", file=out)
    if rep["console"]:
        print("\nConsole", file=out)
        for line in rep["console"]:
            print(f"  {line}", file=out)
    if rep["warnings"]:
        print("\nWarnings", file=out)
        for w in rep["warnings"]:
            print(f"  line {w['line']}: {w['message']}", file=out)


def _print_error(session, path: str, err: TextIO) -> None:
    e = session.error
    col = "" if e.col is None else f"{e.col + 1}:"
    print(f"{path}:{e.line}:{col} {e.kind}: {e.message}", file=err)
    x = session.explanation
    if x is not None and x.kind != e.kind:
        print(f"  {x.title}", file=err)
        print(f"  {x.text}", file=err)
        for fix in x.fixes:
            print("  fix: " + fix.replace("\n", "\n       "), file=err)


class _ProgressBar:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.open = False  # a bar drawn on the line, not yet ended by a newline

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        self.open = done < total
        if not self.open:
            self.stream.write("\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line when the run stopped short of its total (an error, a break), so
        that what follows starts on a line of its own."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


class _StillRunning:
    """Notes on ``stream`` while a long command runs: how many statements so far, and the limit
    that will end it. A thread of its own; ``close()`` ends it before anything else is printed."""

    def __init__(self, session, stream: TextIO, limit: int) -> None:
        self.session = session
        self.stream = stream
        self.limit = limit
        self._done = threading.Event()
        self._lock = threading.Lock()  # a note is never cut by close()
        self._thread = threading.Thread(target=self._loop, name="gradstep-still-running",
                                        daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _loop(self) -> None:
        wait, waited = _NOTE_AFTER, _NOTE_AFTER
        while not self._done.wait(wait):
            with self._lock:
                if not self._done.is_set():
                    self.note(waited)
            wait = _NOTE_EVERY
            waited += wait

    def note(self, seconds: float) -> None:
        done = max(self.session.raw_position + 1, 0)
        self.stream.write(f"gradstep run: still running after {seconds:.0f} s, {done} statements "
                          f"so far; the run ends at {self.limit} (max_statements, which a .gstep "
                          "file's settings.limits may lower). Ctrl+C stops it.\n")
        self.stream.flush()

    def close(self) -> None:
        with self._lock:
            self._done.set()
        if self._thread.is_alive():
            self._thread.join()


# -- commands --------------------------------------------------------------------------------------

def _command_run(args, out: TextIO, err: TextIO) -> int:
    if args.iterations is not None and args.iterations < 0:
        print("gradstep run: --iterations must be at least 0", file=err)
        return EXIT_USAGE
    graph_file = _graph_file(args.file)
    if graph_file.recorded is not None:
        return _report_recording(graph_file, args, out, err)
    session = _session(args.file, graph_file)
    wanted = set(args.break_on)
    if wanted & {"nan", "inf"}:
        session.break_on_nan(True)
    session.break_on_backward("backward" in wanted)
    session.break_on_zero_grad("zero_grad" in wanted)
    session.break_on_step("step" in wanted)
    reasons: list = []
    from .session.events import Paused

    session.subscribe(lambda e: reasons.append(e.reason) if isinstance(e, Paused) else None)
    with _StillRunning(session, err, _statement_limit(args.file, graph_file)):
        _drive(session, args, reasons, err)
    reason = reasons[-1] if reasons and session.status == "paused" else None
    rep = report(session, args.file, reason)
    if args.format == "json":
        print(json.dumps(rep, indent=1, allow_nan=False), file=out)
    else:
        _print_text(rep, session.snapshot(), out)
    if session.error is not None:
        _print_error(session, args.file, err)
        return EXIT_SCRIPT_ERROR
    return EXIT_OK


def _drive(session, args, reasons: list, err: TextIO) -> None:
    """The commands ``gradstep run`` gives the session: to the end, or ``--iterations`` N."""
    if session.resume is not None:
        session.step_into()  # a saved state: the first command pauses where it was restored
    if args.iterations is None:
        session.continue_()
        return
    if session.resume is None:
        session.step_into()
    if session.status == "paused" and not session.pause_state.loop_iterations:
        session.next_iteration()  # enter the training loop first
    if session.status == "paused" and not _is_data_break(reasons):
        many = args.iterations >= _PROGRESS_MIN_ITERATIONS and err.isatty()
        bar = _ProgressBar(err) if many else None
        try:
            session.run_iterations(args.iterations, bar)
        finally:
            if bar is not None:
                bar.close()


def _statement_limit(path: str, graph_file) -> int:
    from .script import Limits

    return (_load(path, graph_file)[2] or Limits()).max_statements


def _report_recording(graph_file, args, out: TextIO, err: TextIO) -> int:
    """A file recorded from real PyTorch runs nothing: report the graph and iterations it holds."""
    if args.break_on:
        print("gradstep run: --break-on does not apply to a recording from PyTorch "
              "(it holds a graph and iterations, no script to run)", file=err)
        return EXIT_USAGE
    from .record import report as recording

    rep = recording.report(graph_file, args.file, iterations=args.iterations)
    if args.format == "json":
        print(json.dumps(rep, indent=1, allow_nan=False), file=out)
    else:
        recording.print_text(rep, out)
    return EXIT_OK


def _is_data_break(reasons: list) -> bool:
    last = reasons[-1] if reasons else None
    return (bool(last) and last not in ("step", "iteration", "loop ended")
            and not last.startswith("resumed at iteration"))


def _command_export(args, out: TextIO, err: TextIO) -> int:
    from .files import write_atomic
    from .session import TraceRecorder

    graph_file = _graph_file(args.file)
    if graph_file.recorded is not None:
        return _export_recording(graph_file, args, err)
    session = _session(args.file, graph_file)
    recorder = TraceRecorder()
    session.subscribe(recorder)
    session.continue_()
    if args.trace:
        data = recorder.to_json(file=args.file)
        target = args.trace
    else:
        from . import graph as graph_module

        to_dot = getattr(graph_module, "to_dot", None)
        if to_dot is None:
            print("gradstep export: DOT export is not available in this build", file=err)
            return EXIT_USAGE
        data = to_dot(session.graph())
        target = args.dot
    try:
        write_atomic(target, data.encode("utf-8"))
    except OSError as e:
        print(f"gradstep export: {target}: {e.strerror or e}", file=err)
        return EXIT_USAGE
    if session.error is not None:
        _print_error(session, args.file, err)
        return EXIT_SCRIPT_ERROR
    return EXIT_OK


def _export_recording(graph_file, args, err: TextIO) -> int:
    """A recording from PyTorch runs nothing: ``--dot`` writes its recorded graph; it has no
    session, so no events for ``--trace``."""
    from .files import write_atomic

    if args.trace:
        print("gradstep export: --trace does not apply to a recording from PyTorch (it runs "
              "no script, so there are no session events); --dot writes its graph", file=err)
        return EXIT_USAGE
    from .graph import to_dot
    from .record import recorded_graph

    try:
        write_atomic(args.dot, to_dot(recorded_graph(graph_file)).encode("utf-8"))
    except OSError as e:
        print(f"gradstep export: {args.dot}: {e.strerror or e}", file=err)
        return EXIT_USAGE
    return EXIT_OK


def window_argument_problem(argv: list[str]) -> str | None:
    """Why ``gradstep ARG`` (the window's command line) cannot mean what was typed: an
    argument that is neither a command nor a file ("no such file or command: nosuch"), said
    before a window (or the missing display) gets in the way. None: open the window."""
    names = [a for a in argv if not a.startswith("-")]
    if not names or Path(names[0]).exists():
        return None
    return f"no such file or command: {names[0]}"


def check_window_argument(argv: list[str], err: TextIO | None = None) -> int | None:
    """``EXIT_USAGE`` (the problem printed) when ``window_argument_problem`` finds one."""
    problem = window_argument_problem(argv)
    if problem is None:
        return None
    print(f"gradstep: {problem} (commands: {', '.join(COMMANDS)}; gradstep --help)",
          file=err or sys.stderr)
    return EXIT_USAGE


def _reader_gone() -> int:
    """stdout's reader went away (``gradstep run ... | head``): stop quietly, as Unix tools do.
    What is still buffered goes nowhere instead of raising again when Python exits."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file behind stdout (a test's StringIO)
        pass
    return EXIT_BROKEN_PIPE


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv`` (without the program name); returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["record"]:  # its options, then the user's script and its own arguments
        from .record.command import main as record_main

        return record_main(argv[1:])
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage and the problem
        return EXIT_USAGE if e.code not in (0, None) else EXIT_OK
    out, err = sys.stdout, sys.stderr
    from .gc_policy import settle_after_imports

    settle_after_imports()  # see engine/gc_policy.py: graph building without collector overhead
    try:
        if args.command == "run":
            return _command_run(args, out, err)
        return _command_export(args, out, err)
    except _FileProblem as e:
        print(f"gradstep {args.command}: {e}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl+C, which the still-running notes offer: no traceback
        print(f"gradstep {args.command}: interrupted", file=err)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _reader_gone()


if __name__ == "__main__":
    sys.exit(main())
