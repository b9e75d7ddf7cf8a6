"""``Session``: a script, its engine state and a position in it, driven by debugger commands.

The session owns an ``engine.script.Interpreter`` and pulls its pauses (one before every statement
at every depth, one after every node of a backward pass). A command pulls pauses until its own
stop condition, a breakpoint, a ``pause()`` from another thread, the end or an error; only where it
stops does the session copy the visible state (a ``Snapshot``), diff it against the previous stop,
add a ``TimelinePoint`` and publish a ``paused`` event. Engine events (backward, zero_grad, step,
grads) are watched all along for counters, data breakpoints and lint.

Time travel re-executes: the interpreter cannot be copied mid-run, but a run is exact given the
seed, so reaching point i means restarting with the same seed and pulling the same number of
pauses (or pulling forward when i lies ahead of the live interpreter).
"""

from __future__ import annotations

import ast
import threading
import warnings
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from .. import events as engine_events
from .. import naming
from ..autograd.grad_mode import state as grad_state
from ..creation import get_generator_state, initial_seed, manual_seed, set_generator_state
from ..script.errors import ScriptError
from ..tensor import Tensor
from . import events as ev
from .breakpoints import (
    ConditionError,
    DataBreakpoints,
    LineBreakpoint,
    as_line_breakpoints,
    compile_condition,
)
from .counters import Counters, StatementCalls, calls_in
from .diff import compute_diff
from .events import EventPublisher, Position, SessionEvent, Status
from .explain import explain
from .lint import Linter, LintWarning
from .nan_watch import NanWatch
from .state import capture, named_tensors, visible_names
from .timeline import BACKWARD, ERROR, STEP, WARNING, ZERO_GRAD, Timeline, TimelinePoint

# Continue and run-to-end record a point at every statement they pass until the timeline has
# this many points; past it only the first statement of each iteration of the outermost loop.
PASSING_POINTS = 20_000
# Past this many points, only the first statement of every THIN_STRIDE-th iteration: a point
# costs ~800 bytes, and an endless loop would otherwise reach the memory limit (1.1 GiB of
# growth at ~1.4M points) before the statement limit.
THINNED_POINTS = 100_000
THIN_STRIDE = 100
PASSED = "passed"  # the reason of a point recorded in passing (no pause was shown there)

# After these the last pause's frame still holds the names to show.
_FRAME_KEPT = (Status.PAUSED, Status.FAILED, Status.STOPPED)


def _visible(pause, name: str):
    """``visible_names(pause.globals, pause.locals).get(name)`` without making the dict (the
    outermost loop's iteration changes at every statement of a one-line loop)."""
    for scope in (pause.locals, pause.globals):
        if scope and name in scope:
            return scope[name]
    return None


def _taken(caught: list) -> list:
    """The warnings recorded so far, the list emptied (handling them may warn again)."""
    out = caught[:]
    del caught[:]
    return out


def _reachable_nodes(roots) -> int:
    """How many nodes a backward from ``roots`` (pairs of node, output_nr) will execute."""
    seen = set()
    stack = [fn for fn, _ in roots if fn is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return len(seen)


def _steps_on_graph(steps: tuple, tensors: dict) -> tuple:
    """The last backward's steps if that backward ran through the graph the names hold now;
    else none. A leaf's AccumulateGrad outlives its iteration: without this, the next
    iteration's new forward graph would show the previous backward's gradient on the edge into
    it, although that backward never ran on this graph (and ``.grad`` may be None by now)."""
    if not steps:
        return steps
    from ..autograd.node import AccumulateGrad

    live: set = set()
    stack = [t.grad_fn for t in tensors.values() if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in live:
            continue
        live.add(id(fn))
        stack.extend(nxt for nxt, _ in getattr(fn, "next_functions", ()) if nxt is not None)
    ran_here = any(id(step.node) in live and not isinstance(step.node, AccumulateGrad)
                   for step in steps)
    return steps if ran_here else ()


# the engine events after which the linter reads its gradient buffers
_LINTER_READS = frozenset({engine_events.BACKWARD_STARTED, engine_events.GRAD_ACCUMULATED,
                           engine_events.PARAM_UPDATED})
_COUNTED_CALLS = frozenset({"zero_grad", "step", "backward"})
_NO_CALLS = StatementCalls()


def _may_count(stmt) -> bool:
    """Whether ``calls_in`` can find anything in ``stmt``: a method call named ``zero_grad``,
    ``step`` or ``backward`` anywhere in it (most statements have none)."""
    return stmt is not None and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr in _COUNTED_CALLS for n in ast.walk(stmt))


def _scalar(value: Any) -> float | None:
    if isinstance(value, Tensor) and value.numel() == 1:
        return float(value._data.reshape(()))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


class Session(EventPublisher):
    """A debugging session of one script.

    Parameters
    ----------
    source : str
        The script (PyTorch-style Python, run by the safe interpreter).
    seed : int
        Seed of the engine's generator, set before every run so that re-execution is exact.
    limits : engine.script.Limits, optional
    breakpoints : iterable
        Line breakpoints: ints, ``(line, condition)`` pairs, dicts or objects with ``line`` and
        ``condition``.
    on_event : callable, optional
        Subscribed at once (see ``subscribe``).
    filename : str
        Shown in error messages.
    timeline_budget : int
        Bytes the timeline's snapshots may take.
    resume : engine.files.SavedState, optional
        A saved state to resume at (a ``.gstep`` file's ``state``): the first command of every
        run (restart and time travel's re-executions included) runs without stopping until the
        outermost loop begins iteration ``resume.iteration``, writes the saved tensors and
        optimizers into the script's names there (``engine.files.restore_state``) and pauses.
        A script that never gets there has the state restored at its end, with a warning.

    Notes
    -----
    Commands run synchronously until the next pause, on whatever thread calls them (one at a
    time); ``pause()`` and ``stop()`` may be called from any thread while a command runs.
    Subscribers are called synchronously on the thread running the command.
    """

    can_edit = True  # the builder may append lines to the script (engine.session.DebugSession)
    is_recorded = False
    runs_in_worker = False  # engine.session.worker.RemoteSession runs one in another process

    def __init__(
        self,
        source: str,
        *,
        seed: int = 0,
        limits=None,
        breakpoints: Iterable = (),
        on_event: Callable[[SessionEvent], None] | None = None,
        filename: str = "<script>",
        timeline_budget: int = 64 * 2**20,
        resume=None,
    ) -> None:
        self.source = source
        self.seed = seed
        self.limits = limits
        self._names_generation = 0  # grows whenever the script's names may have changed
        self._tensors_cache = None  # ((generation, status), visible_tensors())
        self._caught: list | None = None  # warnings being recorded (``_catching_warnings``)
        self.filename = filename
        self.breakpoints: dict[int, LineBreakpoint] = {}
        for bp in as_line_breakpoints(breakpoints):
            # A file's bad condition must not refuse the file: it is reported when reached.
            self.breakpoints[bp.line] = bp
        self.data_breakpoints = DataBreakpoints()
        self.timeline = Timeline(budget_bytes=timeline_budget)
        self.counters = Counters()
        self.linter = Linter.for_source(source)
        self.status = Status.IDLE
        self.error: ScriptError | None = None
        self.explanation = None
        self.namespace: dict | None = None  # the module namespace once the script has ended
        self.losses: list[tuple[int, float]] = []  # (iteration, value of `loss` at its end)
        self.figures: tuple = ()  # engine.plots.Figure the script's pyplot has shown so far
        self._figures_published: tuple = ()  # the figures of the last FiguresChanged sent
        self._plots = None  # this run's engine.plots.PlotState
        self.console: list[str] = []
        self._line_open = False
        self._subscribers: list[Callable[[SessionEvent], None]] = []  # for EventPublisher
        if on_event is not None:
            self.subscribe(on_event)
        self._lock = threading.RLock()
        self._busy = False
        self._pause_requested = threading.Event()
        self._stop_requested = threading.Event()
        self._interp = None
        self._gen = None
        self._gen_error: ScriptError | None = None  # raised while creating the interpreter
        self._rng_saved = None
        self.resume = resume
        self._resume_pending = False  # this run has yet to restore ``resume``
        self._resumed_here = False  # the pause just pulled is where ``resume`` was restored
        self._saw_loop = False  # this run has entered a loop (for the resume warning)
        self._past_breakpoints = False  # run_to_end is running: no breakpoint stops it
        self._record_passing = False  # continue / run_to_end: record the statements passed
        self._reset_run_state()

    # ------------------------------------------------------------------ subscribers
    def _emit(self, event: SessionEvent) -> None:
        if self._replaying:
            return
        self._send(event)

    # ------------------------------------------------------------------ breakpoints
    def set_breakpoint(self, line: int, condition: str | None = None) -> LineBreakpoint:
        """Pause before the statement on ``line`` (when ``condition`` holds, if given).

        Raises
        ------
        ConditionError
            When the condition is not valid or uses something not allowed.
        """
        if condition:
            compile_condition(condition)
        bp = LineBreakpoint(int(line), condition or None)
        self.breakpoints[bp.line] = bp
        return bp

    def clear_breakpoint(self, line: int) -> None:
        self.breakpoints.pop(int(line), None)

    def set_data_breakpoints(self, spec: DataBreakpoints) -> None:
        """Stop on what ``spec`` switches on (a copy is kept: plain flags, safe while a command
        runs). The ``break_on_*`` methods below switch one at a time."""
        self.data_breakpoints = replace(spec)

    def break_on_nan(self, enabled: bool = True) -> None:
        """Pause when any named tensor or ``.grad``, an op's output or a backward node's
        gradient gets a NaN or an infinity."""
        self.data_breakpoints.nan = bool(enabled)

    def break_on_grad_norm(self, threshold: float | None) -> None:
        """Pause when a gradient accumulated into a ``.grad`` has an L2 norm above ``threshold``
        (None switches it off)."""
        self.data_breakpoints.grad_norm = None if threshold is None else float(threshold)

    def break_on_backward(self, enabled: bool = True) -> None:
        """Pause before every statement that calls ``backward()``."""
        self.data_breakpoints.on_backward = bool(enabled)

    def break_on_zero_grad(self, enabled: bool = True) -> None:
        """Pause before every statement that calls an optimizer's or module's ``zero_grad()``."""
        self.data_breakpoints.on_zero_grad = bool(enabled)

    def break_on_step(self, enabled: bool = True) -> None:
        """Pause before every statement that calls ``optimizer.step()``."""
        self.data_breakpoints.on_step = bool(enabled)

    # ------------------------------------------------------------------ reading the state
    @property
    def pause_state(self):
        """The interpreter's current ``Pause`` (None before the start and after the end)."""
        return self._pause if self.status == Status.PAUSED else None

    @property
    def position(self) -> Position | None:
        return self._position

    @property
    def warnings(self) -> list:
        """Every lint warning so far (``LintWarning`` with its line)."""
        return list(self.linter.warnings)

    def visible_names(self) -> dict:
        """The names the user sees: the paused frame's locals over the module's globals."""
        if self._pause is not None and self.status in _FRAME_KEPT:
            return visible_names(self._pause.globals, self._pause.locals)
        if self.namespace is not None:
            return visible_names(self.namespace, None)
        return {}

    def visible_tensors(self) -> dict:
        """``named_tensors(visible_names())``, walked once per state at rest: the graph, the
        worker's panels data and the data breakpoints all ask for it."""
        key = (self._names_generation, self.status)
        cached = self._tensors_cache
        if cached is None or cached[0] != key:
            cached = self._tensors_cache = (key, named_tensors(self.visible_names()))
        return cached[1]

    def module_names(self) -> dict:
        """The module's own names (no function's locals): what a line appended at the end of
        the script can use, so what the builder offers."""
        if self._pause is not None and self.status in _FRAME_KEPT:
            return visible_names(self._pause.globals, None)
        if self.namespace is not None:
            return visible_names(self.namespace, None)
        return {}

    def snapshot(self, point_index: int | None = None):
        """The ``Snapshot`` at a timeline point (the current one by default); None if evicted."""
        if point_index is None:
            return self._snapshot  # the state shown now (also when its point was evicted)
        return self.timeline.snapshot(point_index)

    def console_at(self, point_index: int) -> list[str]:
        """The console as it was at timeline point ``point_index``."""
        return self.console[: self.timeline.console_lines(point_index)]

    @property
    def last_backward_steps(self) -> tuple:
        return tuple(self._backward_steps)

    def graph(self, previous=None):
        """The graph model (``engine.graph.build_graph``) of the current state; with
        ``previous`` (the graph shown before), ``graph.graph["changed"]`` lists what differs."""
        from ..graph import build_graph

        names = self.visible_names()
        return build_graph(names, _steps_on_graph(tuple(self._backward_steps),
                                                  self.visible_tensors()),
                           previous=previous)

    # ------------------------------------------------------------------ thread-safe controls
    def pause(self) -> None:
        """Ask a running command to stop at the next pause (thread-safe)."""
        if self._busy:
            self._pause_requested.set()

    def stop(self) -> None:
        """End the run (thread-safe): a running command ends at the next statement or node."""
        if self.status not in (Status.PAUSED,) and not self._busy:
            return
        self._stop_requested.set()
        interp = self._interp
        if interp is not None:
            interp.stop()
        if self._lock.acquire(blocking=False):
            try:
                if not self._busy and self.status == Status.PAUSED:
                    self._close_run()
                    self._stopped()
            finally:
                self._lock.release()

    # ------------------------------------------------------------------ commands
    def continue_(self):
        """Run to the next breakpoint or the end."""
        with self._command("continue"), self._recording_passes():
            return self._drive(lambda p: None)

    def run_to_end(self):
        """Run to the end past every breakpoint: ``pause()`` and ``stop()`` still end it early.

        The builder re-runs the script this way after writing a line, so the new line's result
        is in the graph at once, whatever breakpoints the user has set above it.
        """
        with self._command("run_to_end"), self._recording_passes():
            self._past_breakpoints = True
            try:
                return self._drive(lambda p: None)
            finally:
                self._past_breakpoints = False

    def step_into(self):
        """Go to the next pause of any kind: into called functions, and node by node into the
        ``backward()`` the current statement calls."""
        with self._command("step_into"):
            return self._drive(lambda p: "step")

    def step_over(self):
        """Run the current statement (and anything it calls, ``backward()`` included) and stop
        at the next statement at the same depth or shallower. Inside a backward pass: the next
        node."""
        with self._command("step_over"):
            here = self._pause
            if here is None:
                return self._drive(lambda p: "step")
            depth = here.depth
            in_backward = here.kind == "backward_step"

            def until(p):
                if in_backward and p.kind == "backward_step":
                    return "step"
                if p.kind == "statement" and p.depth <= depth:
                    return "step"
                return None

            return self._drive(until)

    def step_out(self):
        """Leave the current function (or the backward pass being stepped): stop at the next
        statement of a shallower frame. At module level, run on like ``continue_``."""
        with self._command("step_out"):
            here = self._pause
            if here is None:
                return self._drive(lambda p: None)
            depth = here.depth
            if here.kind == "backward_step":
                return self._drive(
                    lambda p: "step" if p.kind == "statement" and p.depth <= depth else None)
            return self._drive(
                lambda p: "step" if p.kind == "statement" and p.depth < depth else None)

    def run_to_line(self, line: int):
        """Run until a statement on ``line`` (breakpoints on the way still stop)."""
        with self._command("run_to_line"):
            line = int(line)
            return self._drive(
                lambda p: f"line {line}" if p.kind == "statement" and p.line == line else None)

    def next_iteration(self):
        """Run to the first statement of the next pass of the innermost loop around the current
        statement (or, outside any loop, of the next loop entered); stops at the loop's end."""
        with self._command("next_iteration"):
            return self._drive(self._iteration_boundary(self._pause))

    def run_iterations(self, n: int, progress: Callable[[int, int], None] | None = None):
        """``n`` iterations run to their end without stopping in between: ``next_iteration``
        ``n`` times, and once more first from outside a loop (entering it is no iteration run:
        QA's "Run 100 iterations" from line 1 ran 99); ``progress(k, n)`` after each.
        Breakpoints, ``pause()`` and ``stop()`` (from another thread) end it early."""
        with self._command("run_iterations"):
            n = int(n)
            done = 0
            outside = not (self._pause is not None and self._pause.loop_iterations)
            boundary = self._iteration_boundary(self._pause)

            def until(p):
                nonlocal done, boundary, outside
                reason = boundary(p)
                if reason is None:
                    return None
                if outside and reason == "iteration":  # the loop's first pass begins
                    outside = False
                    boundary = self._iteration_boundary(p)
                    return None
                done += 1
                if progress is not None:
                    progress(done, n)
                if done >= n or reason == "loop ended":
                    return f"{done} iterations" if reason != "loop ended" else reason
                boundary = self._iteration_boundary(p)
                return None

            if n <= 0:
                return self._pause if self.status == Status.PAUSED else None
            return self._drive(until)

    def run_to_pause(self, raw_index: int, *, passing: bool = False, reason: str = "paused"):
        """Run to the interpreter's pause number ``raw_index`` of this run (counted from 0 at
        the run's first pause) and stop there with ``reason``, past every breakpoint.

        The exact replay of a command that ``pause()`` or ``stop()`` ended at a moment chosen by
        the clock (``engine.session.worker`` re-executes a killed worker's history with it);
        ``passing``: record the statements passed, as ``continue_`` did."""
        with self._command("run_to_pause"):
            raw_index = int(raw_index)
            if self._raw_count - 1 >= raw_index:
                return self._pause if self.status == Status.PAUSED else None
            self._record_passing = bool(passing)
            self._past_breakpoints = True
            try:
                return self._drive(lambda p: reason if self._raw_count - 1 >= raw_index else None)
            finally:
                self._past_breakpoints = False
                self._record_passing = False

    @property
    def raw_position(self) -> int:
        """How many interpreter pauses this run has pulled, minus one (-1 before the first)."""
        return self._raw_count - 1

    def restart(self):
        """Start over (same seed): a fresh run, paused before the first statement."""
        with self._command("restart"):
            self._start_run(emit_reset=True)
            return self._drive(lambda p: "restart")

    def go_to(self, point_index: int):
        """Travel to timeline point ``point_index``: the live interpreter is re-executed there
        (from the start with the same seed when the point lies behind it), so continuing from
        it gives exactly what an uninterrupted run gives."""
        with self._command("go_to"):
            point = self.timeline[point_index]
            if point.kind in ("finished", "error"):
                target = None  # run to the end again
            else:
                target = point.raw_index
            live = self._raw_count - 1
            if (self._gen is None or target is None or target < live
                    or self.status != Status.PAUSED):
                self._start_run(emit_reset=False)
            self._replaying = True
            try:
                with self._catching_warnings():
                    while target is None or self._raw_count - 1 < target:
                        if self._pull() is None:
                            break
            finally:
                self._replaying = False
            if self.figures is not self._figures_published and (self.figures
                                                                or self._figures_published):
                self._figures_changed(self.figures, None)  # the figures of the point reached
            self._resumed_here = False  # a restore on the way is part of the replayed run
            self._point_index = point_index
            self._clear_since()
            if self.data_breakpoints.nan and self.status == Status.PAUSED:
                self._new_non_finite()  # what is already NaN here must not break again
            snap = self.timeline.snapshot(point_index)
            if snap is None:
                snap = self._capture()
            self._snapshot = snap
            diff = compute_diff(None, snap, (), tuple(self.console[:snap.console_lines]),
                                full=True)
            self._position = self._position_of(point)
            if self.status == Status.PAUSED:
                self._emit(ev.Paused(self._pause, diff, self._position, point, "time travel",
                                     snap, travelled=True))
            else:
                self._emit(ev.Error(self.error, self.explanation, diff, point, travelled=True,
                                    snapshot=snap)
                           if self.status == Status.FAILED else
                           ev.Finished(self.namespace, diff, point, travelled=True,
                                       snapshot=snap))
            return self._pause if self.status == Status.PAUSED else None

    def _iteration_boundary(self, here) -> Callable:
        """A stop condition: the next pass of the innermost loop around ``here`` begins
        ("iteration") or that loop ends ("loop ended"); outside loops, a loop is entered."""
        loops = tuple(here.loop_iterations) if here is not None else ()
        if not loops:
            return lambda p: "iteration" if p.kind == "statement" and p.loop_iterations else None
        n = len(loops)
        outer, (loop_line, k) = loops[:-1], loops[-1]

        def boundary(p):
            if p.kind != "statement":
                return None
            now = tuple(p.loop_iterations)
            if len(now) < n or now[: n - 1] != outer or now[n - 1][0] != loop_line:
                return "loop ended"
            return "iteration" if now[n - 1][1] != k else None

        return boundary

    # ------------------------------------------------------------------ command machinery
    @contextmanager
    def _command(self, name: str):
        with self._lock:
            self._busy = True
            unsubscribe = engine_events.hub.subscribe(self._on_engine_event)
            if self._rng_saved is not None:
                # The engine's generator is global: another session may have drawn from it
                # since this run last paused. Put back this run's stream.
                seed, state = self._rng_saved
                manual_seed(seed)
                set_generator_state(state)
            try:
                # After the end only restart and go_to run anything; other commands are no-ops
                # and must not announce a run that never comes to rest.
                if name == "restart" or (name != "go_to"
                                         and self.status in (Status.IDLE, Status.PAUSED)):
                    self._emit(ev.Running(name))
                if self.status == Status.IDLE and name not in ("restart", "go_to"):
                    self._start_run(emit_reset=False)
                yield
            finally:
                unsubscribe()
                self._rng_saved = ((initial_seed(), get_generator_state())
                                   if self.status == Status.PAUSED else None)
                self._busy = False
                self._pause_requested.clear()
                if self._stop_requested.is_set():
                    # stop() arrived after the command's last pause: the run ends now.
                    self._stop_requested.clear()
                    if self.status == Status.PAUSED:
                        self._close_run()
                        self._stopped()

    def _reset_run_state(self) -> None:
        self._pause = None
        self._raw_count = 0
        self._snapshot = None
        self._position: Position | None = None
        self._point_index: int | None = None
        self._replaying = False
        self._passing_snapshot = None  # the last point recorded in passing (continue)
        self._backward_steps: list = []
        self._backward_total = 0
        self._outer_loop = None
        self._names_cache = None
        self._walk_cache: naming.Naming | None = None  # naming.walk(self._names())
        self._calls_cache: StatementCalls | None = None
        self._stmt_counts: dict = {}  # stmt -> _may_count(stmt), for this run's statements
        self._linter_sync_due = False  # a statement began: sync the linter before it reads
        self._nan_watch = NanWatch()  # where NaNs appeared and what only carried them on
        self._ran = None  # the pause before the current one (its statement just ran)
        self._clear_since()

    def _clear_since(self) -> None:
        self._steps_since: list = []
        self._console_mark = len(self.console)
        self._markers: set = set()
        self._pending_break: str | None = None
        self._pending_culprit: tuple | None = None
        self._culprits: list = []
        self._nan_reported_in_backward = False
        self._nan_reported_in_statement = False

    def _close_run(self) -> None:
        gen, interp = self._gen, self._interp
        self._gen = self._interp = None
        if interp is not None:
            try:
                interp.stop()
            except Exception:
                pass
        if gen is not None:
            try:
                gen.close()
            except Exception:
                pass
        grad_state.enabled = True  # a run stopped inside no_grad() must not leak its mode
        grad_state.anomaly = False

    def _start_run(self, *, emit_reset: bool) -> None:
        from ..script import Interpreter

        self._close_run()
        if emit_reset:
            self.timeline.clear()
            self._figures_published = ()
            self._emit(ev.Reset())
            self._emit(ev.TimelineChanged(0))
        # Everything derived from the run is rebuilt by running it.
        self.counters.backward = self.counters.zero_grad = self.counters.step = 0
        self.counters.iteration = None
        self.linter = Linter.for_source(self.source)
        self.console = []
        self._line_open = False
        self.losses = []
        self.figures = ()
        self.error = self.explanation = self.namespace = None
        self._names_changed()
        self._reset_run_state()
        self._resume_pending = self.resume is not None
        self._resumed_here = False
        self._saw_loop = False
        manual_seed(self.seed)
        grad_state.enabled = True
        grad_state.anomaly = False
        self.status = Status.PAUSED
        try:
            kwargs = {"filename": self.filename, "on_print": self._on_print}
            if self.limits is not None:
                kwargs["limits"] = self.limits
            self._interp = Interpreter(self.source, **kwargs)
            self._gen = self._interp.steps()
            from ..plots import attach

            self._plots = attach(self._interp, self._figures_changed)  # figures are per run
        except ScriptError as e:
            self._interp = self._gen = None
            self._gen_error = e
        else:
            self._gen_error = None

    @contextmanager
    def _recording_passes(self):
        """While continue / run_to_end run: a timeline point at every statement they pass (so
        Step Back after F5 goes back through the run), within ``PASSING_POINTS``."""
        self._record_passing = True
        try:
            yield
        finally:
            self._record_passing = False

    def _pass_point(self, pause) -> None:
        """Record the statement ``pause`` a command runs past, if the timeline does not reach it
        yet (after time travel, the points ahead are the same run's: they are kept)."""
        raw = self._raw_count - 1
        timeline = self.timeline
        n = len(timeline)
        if n:
            last = timeline[-1]
            if last.kind in ("finished", "error") or last.raw_index >= raw:
                return
            if n >= PASSING_POINTS:
                iteration = self.counters.iteration
                if iteration is None or iteration == last.iteration:
                    return  # thinned: past the limit, only each iteration's first statement
                if n >= THINNED_POINTS and iteration % THIN_STRIDE:
                    return  # and further on, of every THIN_STRIDE-th iteration
        snap = capture(pause.globals, pause.locals, self._passing_snapshot or self._snapshot,
                       len(self.console), names=self._names(), walked=self._walked())
        point = TimelinePoint(
            index=len(timeline), kind="statement", line=pause.line,
            iteration=self.counters.iteration, markers=frozenset(self._markers),
            raw_index=raw, depth=pause.depth, reason=PASSED,
        )
        timeline.append(point, snap)
        self._passing_snapshot = snap
        self._markers = set()

    def _drive(self, until: Callable) -> Any:
        """Pull pauses until ``until(pause)`` or a breakpoint names a reason; stop there."""
        if self.status != Status.PAUSED:
            return None
        with self._catching_warnings():
            return self._drive_loop(until)

    def _drive_loop(self, until: Callable) -> Any:
        while True:
            pause = self._pull()
            if pause is None:
                return None
            if self._resumed_here:
                self._resumed_here = False
                if self.data_breakpoints.nan:
                    self._new_non_finite()  # what the saved state holds must not break later
                self._pending_break = None
                self._stop_at(pause, f"resumed at iteration {self.resume.iteration}")
                return pause
            if self._resume_pending:
                # On the way to the saved iteration nothing stops but pause() and stop().
                self._pending_break = None
                if not self._replaying and self._pause_requested.is_set():
                    self._pause_requested.clear()
                    self._stop_at(pause, "paused")
                    return pause
                continue
            reason = self._break_reason(pause) or until(pause)
            if reason:
                self._stop_at(pause, reason)
                return pause
            if self._record_passing and pause.kind == "statement" and not self._replaying:
                self._pass_point(pause)

    @contextmanager
    def _catching_warnings(self):
        """Record warnings for a whole loop of pulls (``_pull`` takes each statement's share):
        entering ``catch_warnings`` costs more than a plain statement does."""
        if self._caught is not None:
            yield
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            def show(message, category, filename, lineno, file=None, line=None):
                # Each warning with the statement running when it was raised: after a call
                # into the script's own function returns, the last pause was inside it
                # (``print(float(opt.step(closure)))`` warned at the closure's last line).
                w = warnings.WarningMessage(message, category, filename, lineno, file, line)
                interp = self._interp
                w.statement = interp._current_stmt() if interp is not None else None
                caught.append(w)

            warnings.showwarning = show  # (catch_warnings puts the original back)
            self._caught = caught
            try:
                yield
            finally:
                self._caught = None

    def _pull(self):
        """The next interpreter pause, with the bookkeeping of the statement that just ran.
        None when the run ended (finished, failed or stopped)."""
        self._names_changed()
        if self._gen_error is not None:
            error, self._gen_error = self._gen_error, None
            self._fail(error)
            return None
        prev = self._pause
        if prev is not None and prev.kind == "statement":
            self._count_calls(self._calls_of(prev))
        if self._stop_requested.is_set() and self._interp is not None:
            self._interp.stop()
        if self._caught is None:
            with self._catching_warnings():
                return self._pull_next(prev)
        return self._pull_next(prev)

    def _pull_next(self, prev):
        caught = self._caught
        del caught[:]  # what the debugger's own code warned between two statements is not theirs
        try:
            pause = next(self._gen)
        except StopIteration as done:
            self._handle_warnings(_taken(caught), prev)
            self._finish(done.value)
            return None
        except ScriptError as e:
            self._handle_warnings(_taken(caught), prev)
            if e.kind == "stopped":
                self._stopped()
            else:
                self._fail(e)
            return None
        self._handle_warnings(_taken(caught), prev)
        self._raw_count += 1
        self._ran = prev
        self._pause = pause
        self._names_cache = None
        self._walk_cache = None
        self._calls_cache = None
        if pause.kind == "statement":
            self._track_iteration(pause)
            if self._resume_pending and pause.loop_iterations:
                self._saw_loop = True
            if self._resume_pending and self._at_resume_point(pause):
                self._restore(pause.globals)
                self._resumed_here = True
            self._linter_sync_due = True
        return pause

    # ------------------------------------------------------------------ per-pause bookkeeping
    def _names(self) -> dict:
        if self._names_cache is None:
            p = self._pause
            self._names_cache = visible_names(p.globals, p.locals) if p is not None else {}
        return self._names_cache

    def _walked(self) -> naming.Naming:
        """``naming.walk(self._names())``, once per pause: the passing snapshot, the linter,
        the NaN check and the names in messages all ask for it."""
        if self._walk_cache is None:
            self._walk_cache = naming.walk(self._names())
        return self._walk_cache

    def _calls_of(self, pause) -> StatementCalls:
        if pause is self._pause and self._calls_cache is not None:
            return self._calls_cache
        may = self._stmt_counts.get(pause.stmt)
        if may is None:
            may = self._stmt_counts[pause.stmt] = _may_count(pause.stmt)
        if not may:
            return _NO_CALLS
        names = self._names() if pause is self._pause else visible_names(pause.globals,
                                                                          pause.locals)
        calls = calls_in(pause.stmt, names)
        if pause is self._pause:
            self._calls_cache = calls
        return calls

    def _parameters(self) -> dict:
        """The parameters the script trains (``state.parameters_of`` of the names)."""
        return {e.name: e.tensor for e in self._walked().tensors if e.parameter}

    def _sync_linter(self) -> None:
        """Before the linter reads its buffers: forget those the script cleared by hand
        (``p.grad = None``) before this statement. Once per statement, and only when a gradient
        event comes, so statements that touch no gradient cost no walk."""
        if self._linter_sync_due:
            self._linter_sync_due = False
            if self.linter.tracking:
                self.linter.sync(self._parameters())

    # ------------------------------------------------------------------ resuming a saved state
    def _at_resume_point(self, pause) -> bool:
        loops = pause.loop_iterations
        return bool(loops) and loops[0][1] >= self.resume.iteration

    def _names_changed(self) -> None:
        """The script ran (or its state was replaced): the names walked so far are stale."""
        self._names_generation += 1
        self._tensors_cache = None

    def _restore(self, namespace: dict, why: str | None = None) -> None:
        """Write ``resume`` into ``namespace``; warn (with ``why``) about anything not restored."""
        self._names_changed()
        from ..files.snapshot import restore_state

        self._resume_pending = False
        self._names_cache = None
        self._walk_cache = None
        missing = restore_state(namespace, self.resume)
        problems = [why] if why else []
        if missing:
            problems.append("the script has no tensor or optimizer of the right shape for "
                            + ", ".join(missing) + " (left as the script made them)")
        if problems:
            line = self._pause.line if self._pause is not None else None
            self._warned(self.linter._add(LintWarning(
                "resume", line, "Saved state: " + "; ".join(problems) + ".")))

    def _count_calls(self, calls: StatementCalls) -> None:
        if calls.zero_grad:
            self.counters.zero_grad += calls.zero_grad
            self._markers.add(ZERO_GRAD)
        if calls.step:
            self.counters.step += calls.step
            self._markers.add(STEP)

    def _track_iteration(self, pause) -> None:
        loops = pause.loop_iterations
        outer = loops[0] if loops else None
        if outer != self._outer_loop:
            if self._outer_loop is not None:
                value = _scalar(_visible(pause, "loss"))
                if value is not None:
                    self.losses.append((self._outer_loop[1], value))
            self._outer_loop = outer
        self.counters.iteration = outer[1] if outer is not None else None

    def _handle_warnings(self, caught, prev) -> None:
        if not caught:
            return
        line = prev.line if prev is not None else None
        stmt = prev.stmt if prev is not None else None
        names = visible_names(prev.globals, prev.locals) if prev is not None else {}
        for w in caught:
            if issubclass(w.category, RuntimeWarning) and "encountered in" in str(w.message):
                continue  # numpy's floating-point chatter inside the engine; PyTorch is silent
            running = getattr(w, "statement", None)
            if running is None or running is stmt:
                self._warned(self.linter.python_warning(str(w.message), line, stmt, names))
            else:  # a caller's statement, after the function it called returned
                self._warned(self.linter.python_warning(str(w.message), running.lineno,
                                                        running, {}))

    def _warned(self, lint) -> None:
        if lint is None:
            return
        self._markers.add(WARNING)
        self._emit(ev.Warning(lint, lint.line))

    def _on_print(self, text: str, *_: Any) -> None:
        text = str(text)
        if not text:
            return
        # The console is a list of lines; print(..., end="") leaves the last one open.
        lines = text.split("\n")
        if self._line_open:
            self.console[-1] += lines[0]
        else:
            self.console.append(lines[0])
        self.console.extend(lines[1:])
        self._line_open = not (len(lines) > 1 and self.console[-1] == "")
        if not self._line_open:
            self.console.pop()
        self._emit(ev.Output(text, self._pause.line if self._pause else None))

    # ------------------------------------------------------------------ figures
    def _figures_changed(self, figures: tuple, line) -> None:
        """The script's pyplot showed figures (``plt.show()``, savefig, the run's end)."""
        self.figures = figures
        if not self._replaying:
            self._figures_published = figures
        self._emit(ev.FiguresChanged(figures, line))

    def _end_figures(self) -> None:
        """The run ended: the figures it drew and left open are shown too (as a notebook)."""
        plots, self._plots = self._plots, None
        if plots is not None:
            plots.finish()

    # ------------------------------------------------------------------ engine events
    def _on_engine_event(self, event) -> None:
        kind, data = event.kind, event.payload
        line = self._pause.line if self._pause is not None else None
        breaks = self.data_breakpoints
        if kind in _LINTER_READS:
            self._sync_linter()
        if kind == engine_events.BACKWARD_STARTED:
            self.counters.backward += 1
            self._markers.add(BACKWARD)
            self._backward_steps = []
            self._backward_total = _reachable_nodes(data.get("roots", ()))
            self._nan_reported_in_backward = False
        elif kind == engine_events.BACKWARD_STEP:
            step = data["step"]
            self._backward_steps.append(step)
            self._steps_since.append(step)
            # the watch sees every step: a carried gradient must be known as one
            if breaks.nan and self._nan_watch.backward_step(step) \
                    and not self._nan_reported_in_backward:
                self._nan_reported_in_backward = True
                self._set_break(f"NaN/Inf in the gradient computed by {step.node.name()}",
                                ("op", step.node.name()))
        elif kind == engine_events.BACKWARD_FINISHED:
            for lint in self.linter.backward_finished(self._names(), line):
                self._warned(lint)
        elif kind == engine_events.GRAD_ACCUMULATED:
            tensor = data["tensor"]
            self.linter.grad_accumulated(tensor)
            if breaks.grad_norm is not None and tensor._grad is not None:
                norm = float(np.linalg.norm(tensor._grad._data.astype(np.float64).ravel()))
                if norm > breaks.grad_norm:
                    name = self._name_of(tensor) or "a tensor"
                    self._set_break(f"gradient norm of {name}.grad is {norm:.4g} "
                                    f"(> {breaks.grad_norm:g})",
                                    ("grad", name) if name != "a tensor" else None)
        elif kind == engine_events.GRAD_ZEROED:
            self.linter.grad_zeroed(data["tensor"])
            self._markers.add(ZERO_GRAD)
        elif kind == engine_events.PARAM_UPDATED:
            tensor = data["tensor"]
            self._markers.add(STEP)
            self._warned(self.linter.param_updated(tensor, self._name_of(tensor), line))
        elif kind == engine_events.OPTIMIZER_STATE_CHANGED:
            self._markers.add(STEP)
        elif kind == engine_events.OP_RECORDED:
            out = data.get("output")
            if breaks.nan and isinstance(out, Tensor) \
                    and self._nan_watch.op_recorded(data["node"], out) \
                    and not self._nan_reported_in_statement:
                self._nan_reported_in_statement = True
                self._set_break(f"NaN/Inf produced by {data['node'].name()}",
                                ("op", data["node"].name()))

    def _set_break(self, reason: str, culprit: tuple | None = None) -> None:
        if self._pending_break is None:
            self._pending_break = reason
            self._pending_culprit = culprit

    def _name_of(self, tensor) -> str | None:
        return self._walked().name_of(tensor)

    # ------------------------------------------------------------------ stopping
    def _break_reason(self, pause) -> str | None:
        if self._replaying:
            return None
        if self._pause_requested.is_set():
            self._pause_requested.clear()
            return "paused"
        if self._past_breakpoints:
            return None
        breaks = self.data_breakpoints
        reasons = []
        culprits: list = []
        self._culprits = culprits  # what _stop_at tells the views was at fault
        if self._pending_break is not None:
            reasons.append(self._pending_break)
            if self._pending_culprit is not None:
                culprits.append(self._pending_culprit)
        if breaks.nan:
            found = self._new_non_finite()
            if found:
                reasons.insert(0, f"NaN/Inf in {', '.join(found)}")
                culprits.extend(("grad", n[:-5]) if n.endswith(".grad") else ("tensor", n)
                                for n in found)
        if pause.kind == "statement":
            self._nan_reported_in_statement = False
            bp = self.breakpoints.get(pause.line)
            if bp is not None and bp.enabled and self._condition_holds(bp, reasons):
                bp.hits += 1
                reasons.append(f"breakpoint at line {bp.line}"
                               + (f" ({bp.condition})" if bp.condition else ""))
            if breaks.on_backward or breaks.on_zero_grad or breaks.on_step:
                calls = self._calls_of(pause)
                if breaks.on_backward and calls.backward:
                    reasons.append("backward()")
                if breaks.on_zero_grad and calls.zero_grad:
                    reasons.append("zero_grad()")
                if breaks.on_step and calls.step:
                    reasons.append("optimizer.step()")
        return "; ".join(reasons) if reasons else None

    def _condition_holds(self, bp: LineBreakpoint, reasons: list) -> bool:
        if not bp.condition:
            return True
        try:
            # in the script's own interpreter, under the run's limits: a condition from a file
            # is as untrusted as the script
            compile_condition(bp.condition)
            return self._interp.evaluate_condition(bp.condition, self._names())
        except (ConditionError, ScriptError) as e:
            reasons.append(f"breakpoint condition at line {bp.line} failed: {e}")
            return False

    def _new_non_finite(self) -> list[str]:
        """Names (``w``, ``w.grad``) that hold a new NaN/Inf now and did not at the last check
        (``NanWatch.check``: not one only carried on from a value already seen)."""
        ran = self._ran
        return self._nan_watch.check(self._walked().tensors,
                                     ran.stmt if ran is not None and ran.kind == "statement"
                                     else None)

    def _capture(self):
        p = self._pause
        # Records that did not change are shared with the latest snapshot (one in passing too).
        previous = self._passing_snapshot or self._snapshot
        if self.status == Status.PAUSED and p is not None:
            return capture(p.globals, p.locals, previous, len(self.console))
        if self.namespace is not None:
            return capture(self.namespace, None, previous, len(self.console))
        if p is not None:
            return capture(p.globals, p.locals, previous, len(self.console))
        return capture({}, None, previous, len(self.console))

    def _position_of(self, point: TimelinePoint) -> Position:
        return Position(point.line, point.iteration, point.backward_step, point.depth,
                        point.index)

    def _add_point(self, kind: str, reason: str | None, snap) -> TimelinePoint:
        # After time travel the run is re-executed, and re-execution is exact: a stop at a
        # pause the timeline already has is that point (the points after it are kept, so
        # stepping forward from a point travelled to drops nothing); a stop between two points
        # is inserted there.
        p = self._pause
        raw = self._raw_count - 1
        at, found = self.timeline.position_of(raw, kind in ("finished", "error"))
        self._passing_snapshot = None
        if found:
            point = replace(self.timeline[at], reason=reason)
            self.timeline.replace(at, point)
            self._point_index = point.index
            self._position = self._position_of(point)
            return point
        step = None
        if p is not None and p.kind == "backward_step" and kind == "backward_step":
            step = (p.step.index + 1, max(self._backward_total, p.step.index + 1))
        point = TimelinePoint(
            index=at, kind=kind,
            line=p.line if p is not None else None,
            iteration=self.counters.iteration, backward_step=step,
            markers=frozenset(self._markers), raw_index=raw,
            depth=p.depth if p is not None else 0, reason=reason,
        )
        self.timeline.insert(point, snap)
        self._point_index = point.index
        self._position = self._position_of(point)
        return point

    def _publish(self, kind: str, reason: str | None):
        snap = self._capture()
        diff = compute_diff(self._snapshot, snap, tuple(self._steps_since),
                            tuple(self.console[self._console_mark:]))
        point = self._add_point(kind, reason, snap)
        self._snapshot = snap
        self._clear_since()
        return snap, diff, point

    def _stop_at(self, pause, reason: str) -> None:
        culprits = tuple(self._culprits)  # before _publish starts the next "since"
        snap, diff, point = self._publish(pause.kind, reason)
        self._emit(ev.Paused(pause, diff, self._position, point, reason, snap,
                             culprits=culprits))
        self._emit(ev.TimelineChanged(len(self.timeline)))

    def _finish(self, namespace) -> None:
        self.status = Status.FINISHED
        self.namespace = namespace if namespace is not None else (
            self._pause.globals if self._pause is not None else {})
        self._names_changed()
        if self._resume_pending:
            it = self.resume.iteration
            self._restore(self.namespace,
                          f"the script ended before iteration {it} of its outermost loop, so "
                          "the state was restored at the end" if self._saw_loop else
                          f"the script has no loop to resume at iteration {it}, so the state "
                          "was restored at the end")
        self.counters.iteration = None
        if self._outer_loop is not None:
            value = _scalar(visible_names(self.namespace, None).get("loss"))
            if value is not None:
                self.losses.append((self._outer_loop[1], value))
            self._outer_loop = None
        self._end_figures()
        self._gen = self._interp = None
        if self._replaying:
            return
        snap, diff, point = self._publish("finished", "finished")
        self._emit(ev.Finished(self.namespace, diff, point, snapshot=snap))
        self._emit(ev.TimelineChanged(len(self.timeline)))

    def _fail(self, error: ScriptError) -> None:
        self._names_changed()
        self.status = Status.FAILED
        self.error = error
        stmt = self._pause.stmt if self._pause is not None else None
        names = self._names() if self._pause is not None else {}
        self.explanation = explain(error, stmt, names)
        self._end_figures()
        self._gen = self._interp = None
        self._markers.add(ERROR)
        if self._replaying:
            return
        snap, diff, point = self._publish("error", error.kind)
        self._emit(ev.Error(error, self.explanation, diff, point, snapshot=snap))
        self._emit(ev.TimelineChanged(len(self.timeline)))

    def _stopped(self) -> None:
        self.status = Status.STOPPED
        self._gen = self._interp = None
        self._stop_requested.clear()
        grad_state.enabled = True
        self._emit(ev.Finished(self._pause.globals if self._pause else {}, None, None,
                               stopped=True))
