"""``gradstep record SCRIPT.py [ARGS...]``: record a user's own, unchanged PyTorch script.

The script runs in this process as ``python SCRIPT.py ARGS...`` would run it (``__main__``,
``sys.argv = [SCRIPT, *ARGS]``, its folder first on ``sys.path``), with the user's own torch and
no sandbox: it is their code. While it runs, torch's *global* hooks watch it, so nothing in the
script has to name the model or the optimizer:

- ``torch.autograd.backward`` is wrapped (as :func:`engine.record.session` does) so every
  ``backward()`` is recorded with node hooks: the graph, the gradient on every edge, PyTorch's
  execution order, the loss, the parameters and their gradients;
- the global module forward pre-/post-hooks (:class:`~engine.record.modules.GlobalModuleWatcher`)
  find the model (the first module with parameters whose forward runs outside any other) and
  group the nodes by the submodule that made them;
- the global optimizer step pre-/post-hooks find the optimizer and end an iteration at its
  ``step()``, saving its state and hyperparameters (without an optimizer, one ``backward()`` is
  one iteration).

After ``--iterations`` iterations the file is written (``RecordingSession.save``: the graph of the
last backward, ``recorded.iterations`` one saved state per iteration), every hook is taken out and
the script goes on at full speed, or with ``--stop`` ends there. If the script raises, what was
recorded so far is written first, then the error propagates as python would report it.

``main(argv)`` is both ``gradstep record ...`` (``engine/cli.py``) and ``python -m engine.record
...`` (``engine/record/__main__.py``, so ``torchrun -m engine.record`` works: only rank
``--rank`` records).
"""

from __future__ import annotations

import argparse
import importlib
import os
import runpy
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

from .arrays import Budget
from .modules import GlobalModuleWatcher
from .session import DEFAULT_ITERATION_BUDGET, RecordingSession

DEFAULT_ITERATIONS = 3
PREFIX = "gradstep record"
EXIT_USAGE = 2
RUN_KEY = "run"
"""``metadata["gradstep.record"]["run"]``: how the recording was made (script, argv, ...)."""

_HERE = os.path.dirname(os.path.abspath(__file__))


class StopScript(BaseException):
    """Raised from a hook to end the user's script after writing (``--stop``).

    A BaseException, like SystemExit, so the script's ``except Exception`` does not swallow it.
    """


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run your own PyTorch training script, unchanged, and record its first "
                    "training iterations into a .gstep file: every backward() (the graph, the "
                    "gradient on every edge, PyTorch's execution order), the losses, parameters, "
                    "gradients, the optimizer's state and hyperparameters. The script runs in "
                    "this process with your own torch and NO sandbox, exactly as 'python "
                    "SCRIPT.py ARGS...' would run it: only record code you trust.",
        epilog="An iteration is one optimizer.step() (one backward() when the script has no "
               "optimizer). After N iterations the file is written and the script goes on "
               "unrecorded (or ends with --stop). Under torchrun (python -m engine.record), only "
               "the process whose RANK is --rank records. Options go before SCRIPT; everything "
               "after it is the script's own arguments.")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, metavar="N",
                        help=f"record the first N iterations (default {DEFAULT_ITERATIONS})")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="the .gstep file to write (default: SCRIPT's name with .gstep, in "
                             "the current folder)")
    parser.add_argument("--open", action="store_true",
                        help="open the recording in the gradstep window when the script ends")
    parser.add_argument("--stop", action="store_true",
                        help="end the script (exit code 0) right after writing the file")
    parser.add_argument("--rank", type=int, default=0, metavar="R",
                        help="in a multi-process run (the RANK environment variable, as torchrun "
                             "sets it), only rank R records; the others run unrecorded "
                             "(default 0)")
    parser.add_argument("script", metavar="SCRIPT.py", help="your training script")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments passed to the script (its sys.argv[1:])")
    return parser


def _say(message: str) -> None:
    sys.stdout.flush()
    print(f"{PREFIX}: {message}", file=sys.stderr, flush=True)


# -- finding names for what the script made ------------------------------------------------------
def _skipped_dirs(torch) -> tuple[str, ...]:
    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, _HERE + os.sep)


def _user_frame(skipped: tuple[str, ...]):
    """The innermost frame of the user's code (not torch's, not the recorder's)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(skipped):
            return frame
        frame = frame.f_back
    return None


def _namespace(frame) -> list[tuple[str, object]]:
    """The frame's locals, then its globals (a name bound in both: the local one)."""
    if frame is None:
        return []
    local = dict(frame.f_locals)
    out = list(local.items())
    out.extend((k, v) for k, v in frame.f_globals.items() if k not in local)
    return [(k, v) for k, v in out if isinstance(k, str) and not k.startswith("__")]


def _name_in(namespace, obj) -> str:
    return next((name for name, value in namespace if value is obj), "")


# -- the recording --------------------------------------------------------------------------------
class ScriptRecording(RecordingSession):
    """A :class:`RecordingSession` that finds the model and optimizer through torch's global hooks.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    iterations : int
        How many iterations to record before writing.
    stop : bool
        Raise :class:`StopScript` right after writing.
    info : dict
        Written as ``metadata["gradstep.record"]["run"]``.
    """

    def __init__(self, path, iterations: int, *, stop: bool = False, info: dict | None = None,
                 title: str = "") -> None:
        super().__init__(path, title=title)
        self.wanted = iterations
        self.stop = stop
        self.info = dict(info or {})
        self.optimizers: dict[str, object] = {}  # name -> optimizer, in the order first stepped
        self.done = False  # written (or given up): the hooks do nothing any more
        self.written = False
        self.failure: str | None = None  # why the recorder gave up or could not write
        self._skipped = _skipped_dirs(self._torch)
        self._in_step = 0
        self._expect_optimizer = False  # the backward's caller holds an optimizer
        self._backward_only = False  # established: no optimizer, an iteration is a backward
        self._wrapper = None
        self._handles: list = []

    # -- hooks -----------------------------------------------------------------------------------
    def install(self) -> None:
        torch = self._torch
        self._watcher = GlobalModuleWatcher(self._root_name)
        hooks = importlib.import_module("torch.optim.optimizer")
        self._handles = [hooks.register_optimizer_step_pre_hook(self._step_pre),
                         hooks.register_optimizer_step_post_hook(self._step_post)]
        self._original_backward = torch.autograd.backward
        self._wrapper = self._backward_wrapper()
        torch.autograd.backward = self._wrapper

    def _unhook(self, *, all_hooks: bool) -> None:
        """Take the hooks out; the step post-hook only with ``all_hooks`` (torch is iterating
        over its hooks when ours ends the recording; until then it does nothing)."""
        torch = self._torch
        if self._wrapper is not None and torch.autograd.backward is self._wrapper:
            torch.autograd.backward = self._original_backward
        if self._watcher is not None:
            self._watcher.remove()
        if self._handles:
            self._handles[0].remove()
        if all_hooks:
            for handle in self._handles:
                handle.remove()
            self._handles = []

    def _root_name(self, module) -> str:
        return _name_in(_namespace(_user_frame(self._skipped)), module)

    def _step_pre(self, optimizer, args, kwargs):
        if self.done:
            return
        if not any(opt is optimizer for opt in self.optimizers.values()):
            namespace = _namespace(_user_frame(self._skipped))
            name = _name_in(namespace, optimizer) or "optimizer"
            base, k = name, 1
            while name in self.optimizers:
                k += 1
                name = f"{base}{k}"
            self.optimizers[name] = optimizer
            self.optimizer_name, self.optimizer = next(iter(self.optimizers.items()))
        self._in_step += 1

    def _step_post(self, optimizer, args, kwargs):
        if self.done:
            return
        self._in_step = max(0, self._in_step - 1)
        if optimizer is self.optimizer:  # the first optimizer that stepped drives iterations
            self._guarded(self.step)

    def _guarded(self, action) -> None:
        """Run a recorder action; a failure of the recorder must not break the user's script."""
        try:
            action()
        except (StopScript, KeyboardInterrupt):
            raise
        except Exception as exc:
            self._give_up(exc)

    def _give_up(self, exc: BaseException) -> None:
        self.failure = f"{type(exc).__name__}: {exc}"
        _say(f"the recorder failed ({self.failure}); the script goes on unrecorded")
        self.done = True
        self._unhook(all_hooks=False)

    # -- recording (RecordingSession's, with names found on the way) -----------------------------
    def _record(self, loss, run):
        if self.done:
            return run()
        progress = []

        def user_backward():
            progress.append("started")
            out = run()
            progress.append("finished")
            return out

        try:
            namespace = _namespace(_user_frame(self._skipped))
            self._find_names(namespace)
            if self._pending is not None and self._ends_at_backward():
                self.step()  # may write the file (and end the script, with --stop)
            if self.done:
                return user_backward()
            super()._record(loss, user_backward)
            if self._backward_only and not self._in_step:
                self.step()  # no optimizer will end it: the iteration is this backward
        except (StopScript, KeyboardInterrupt):
            raise
        except Exception as exc:
            if progress == ["started"]:
                raise  # the user's backward itself raised: their error, with their traceback
            self._give_up(exc)
            if not progress:
                return run()
        return None

    def _find_names(self, namespace) -> None:
        torch = self._torch
        if not self.optimizers and not self._expect_optimizer:
            self._expect_optimizer = any(isinstance(v, torch.optim.Optimizer)
                                         for _, v in namespace)
        names = dict(self._watcher.roots if self._watcher is not None else ())
        for name, opt in self.optimizers.items():
            names.setdefault(name, opt)
        for name, value in namespace:  # plain parameters: w = torch.randn(3, requires_grad=True)
            if isinstance(value, torch.Tensor) and value.requires_grad and \
                    value.grad_fn is None and name not in names:
                names[name] = value
        self.names = names

    def _ends_at_backward(self) -> bool:
        if self._in_step or self.optimizers or self._expect_optimizer:
            return False
        self._backward_only = True
        return True

    def _optimizers(self) -> dict:
        return dict(self.optimizers)

    def step(self) -> None:
        super().step()
        if not self.done and len(self.iterations) >= self.wanted:
            self.finish("done")
            if self.stop:
                _say("--stop: ending the script here")
                raise StopScript

    # -- the end -----------------------------------------------------------------------------------
    def finish(self, reason: str) -> None:
        """Write what was recorded (once) and take the hooks out (``reason`` goes in metadata)."""
        if self.done:
            return
        self.done = True
        self._unhook(all_hooks=False)
        if self._pending is not None:
            super().step()  # the open iteration: its backward ran, its step never came
        if self.recorded is None:
            return
        self.extra_metadata = {RUN_KEY: {**self.info, "iterations_requested": self.wanted,
                                         "ended": reason}}
        try:
            self.save()
        except (ValueError, OSError) as exc:
            self.failure = f"could not write {self.path}: {exc}"
            _say(self.failure)
            return
        self.written = True
        _say(self.summary_text(reason))

    def close(self) -> None:
        self._unhook(all_hooks=True)

    def summary_text(self, reason: str) -> str:
        n = len(self.iterations)
        size = os.path.getsize(self.path)
        losses = ", ".join(_short(x) for x in self.losses)
        rec = self.recorded
        lines = [f"wrote {self.path} ({_size(size)}): {n} iteration{'s' * (n != 1)}"
                 + (f" of {self.wanted} asked ({reason})" if n < self.wanted else "")
                 + f", losses [{losses}]"]
        if self.optimizers:
            opts = ", ".join(f"{name} ({type(opt).__name__})"
                             for name, opt in self.optimizers.items())
            lines.append(f"  kept: per iteration the loss, parameters, gradients and the state "
                         f"and hyperparameters of {opts} after its step")
        else:
            lines.append("  kept: per iteration the loss, parameters and gradients (no "
                         "optimizer stepped: one backward() is one iteration)")
        lines.append(f"  kept: the graph of the last backward, {len(rec.nodes)} nodes and "
                     f"{len(rec.edges)} edges, with the gradient on each edge and PyTorch's "
                     f"execution order")
        graph, per_iteration = Budget(), self.iteration_budget
        lines.append(f"  budget: arrays up to {graph.max_array_elements:,} elements each, "
                     f"{graph.max_total_elements:,} in all for the graph; "
                     f"{per_iteration.max_array_elements:,} each, "
                     f"{per_iteration.max_total_elements:,} in all for the iterations")
        cut_graph, cut_iter = self._graph_budget.omitted, self.iteration_budget.omitted
        cuts = [(k, _cut_text(s)) for k, s in enumerate(self._summaries)]
        if not (cut_graph or cut_iter or any(text for _, text in cuts)):
            lines.append("  cut: nothing (every array fit)")
        else:
            lines.append(f"  cut: {cut_graph} graph array(s) over budget, kept as statistics "
                         f"(shape, min, max, mean, norm, NaN/Inf counts); {cut_iter} "
                         f"per-iteration array(s) over budget, left out (each grad's norm is "
                         f"in the file's summary)")
            lines.extend(f"  cut from iteration {k}: {text}" for k, text in cuts if text)
        return "\n".join(lines)


def _cut_text(summary: dict) -> str:
    """What the budget left out of one iteration (its summary's ``omitted*``), or ''."""
    state = [f"{param} {key}" for cut in (summary.get("omitted_state") or {}).values()
             for param, keys in cut.items() for key in keys]
    parts = [(summary.get("omitted") or [], "tensor"), (summary.get("omitted_grads") or [], "grad"),
             (state, "optimizer state array")]
    return "; ".join(f"{len(names)} {what}{'s' * (len(names) != 1)} ({_names(names)})"
                     for names, what in parts if names)


def _names(names: list, shown: int = 4) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _short(x) -> str:
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _size(n: int) -> str:
    return f"{n} bytes" if n < 10_000 else f"{n / 1e3:.0f} kB" if n < 10_000_000 else \
        f"{n / 1e6:.1f} MB"


# -- running the script ---------------------------------------------------------------------------
def _exit_code(exc: SystemExit) -> int:
    """What python exits with for ``sys.exit(code)`` (printing a message code, as it does)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_traceback(exc: BaseException, script: str) -> None:
    """The error as python prints it for a script: from the script's first frame on (none for
    an error before it ran, such as a SyntaxError, which then shows its line as python does)."""
    tb = exc.__traceback__
    target = os.path.abspath(script)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    sys.stdout.flush()
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
    sys.stderr.flush()


def run_script(script: str, args: list[str], recording: ScriptRecording | None = None) -> int:
    """Run ``script`` as ``__main__`` like ``python script args...``; returns its exit code.

    With ``recording``, its hooks are installed first and the file is written when the script
    stops (if it was not already), before an error's traceback is printed.
    """
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *args]
    folder = os.path.dirname(os.path.abspath(script))
    if sys.path:
        sys.path[0] = folder
    else:
        sys.path.insert(0, folder)
    code, error, reason = 0, None, "the script ended"
    try:
        if recording is not None:
            recording.install()
        runpy.run_path(script, run_name="__main__")
    except StopScript:
        code, reason = 0, "--stop"
    except SystemExit as exc:
        code, reason = _exit_code(exc), "the script exited"
    except KeyboardInterrupt as exc:
        code, error, reason = 130, exc, "interrupted"
    except BaseException as exc:
        code, error, reason = 1, exc, f"the script raised {type(exc).__name__}"
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if recording is not None:
            recording.close()
    if recording is not None and not recording.done:
        recording.finish(reason)
        if recording.recorded is None and recording.failure is None:
            if error is None:
                _say(f"{script} never called backward(): nothing was recorded and no file was "
                     f"written (gradstep record watches loss.backward() and optimizer.step())")
            else:
                _say("the script raised before its first backward(): nothing was recorded and "
                     "no file was written")
            if code == 0:
                code = 1
    if error is not None:
        if recording is not None and recording.written:
            _say(f"the script raised {type(error).__name__}; the iterations recorded before "
                 f"it are in {recording.path}")
        _print_traceback(error, script)
    return code


def _open_command(path: str) -> list[str]:
    """How to launch the window on ``path``: the ``gradstep`` program, else this python's app."""
    exe = shutil.which("gradstep")
    return [exe, path] if exe else [sys.executable, "-m", "app", path]


def _open(path: str) -> None:
    """Launch the window on ``path`` in its own process: Qt stays out of this one."""
    try:
        subprocess.Popen(_open_command(path), stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        _say(f"could not open the window ({exc}); run: gradstep {path}")
        return
    _say(f"opening {path} in the gradstep window")


def _rank() -> int | None:
    value = os.environ.get("RANK")
    if value is None or not value.strip():
        return 0
    try:
        return int(value)
    except ValueError:
        return None


def main(argv: list[str] | None = None, prog: str = "gradstep record") -> int:
    """``gradstep record [options] SCRIPT.py [ARGS...]``; returns the exit code."""
    parser = _parser(prog)
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse printed the usage (or the help)
        return EXIT_USAGE if exc.code not in (0, None) else 0
    if args.iterations < 1:
        print(f"{prog}: --iterations must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    script = args.script
    if not os.path.isfile(script):
        print(f"{prog}: {script}: no such file", file=sys.stderr)
        return EXIT_USAGE
    rank = _rank()
    if rank is None:
        print(f"{prog}: the RANK environment variable is not an integer: "
              f"{os.environ.get('RANK')!r}", file=sys.stderr)
        return EXIT_USAGE
    if rank != args.rank:
        return run_script(script, args.args)  # another rank records
    try:
        from ._torch import require_torch

        require_torch()
    except ImportError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    output = args.output or Path(script).with_suffix(".gstep").name
    info = {"script": os.path.basename(script), "argv": [script, *args.args],
            "rank": rank if "RANK" in os.environ else None}
    recording = ScriptRecording(output, args.iterations, stop=args.stop, info=info,
                                title=f"Recorded: {os.path.basename(script)}")
    code = run_script(script, args.args, recording)
    if recording.failure is not None and code == 0:
        code = 1
    if args.open and recording.written:
        _open(str(output))
    return code


__all__ = ["DEFAULT_ITERATIONS", "DEFAULT_ITERATION_BUDGET", "RUN_KEY", "ScriptRecording",
           "StopScript", "main", "run_script"]
