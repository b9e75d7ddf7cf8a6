"""Replay a recorded file in the debugger: ``RecordedSession`` stands in for
``engine.session.Session``.

The window drives a live script through a ``Session``; a file recorded from real PyTorch has no
script to run, so ``RecordedSession`` offers the part of the Session interface the window's
controller uses: it implements ``engine.session.DebugSession`` (``can_edit = False``,
``is_recorded = True``) and publishes the same typed events (``engine.session.events``), so every
view draws a replay as it draws a live run. Nothing is computed: every number is the recording's.

The replay is a fixed sequence of points: for each recorded iteration, the backward before any
node ran (step 0) and after each node PyTorch ran, in PyTorch's order (step k of n); then the end.
Commands move along it: step into / over = one node, step out = to the end of this backward,
next iteration = to the next iteration's step 0, continue = to the end (or a data breakpoint),
go_to = any point. Earlier iterations kept their tensors but not the gradients on the edges.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..gc_policy import collector_paused, keep_if_large
from ..graph.layout import STRUCTURE
from ..session import events as ev
from ..session.breakpoints import DataBreakpoints, LineBreakpoint
from ..session.counters import Counters
from ..session.diff import compute_diff
from ..session.events import EventPublisher, Position, SessionEvent, Status
from ..session.panels_model import (
    BufferState,
    Contribution,
    ReplayFeed,
    ReplayOptimizer,
    StepRecord,
    TrainingHistory,
    norm,
    state_arrays,
)
from ..session.panels_model.training import ranked
from ..session.state import Snapshot, TensorRecord, non_finite
from .graph import _recorded_of, recorded_graph
from .replay import ReplayStep, graph_at_step, replay_steps
from .timeline import ReplayTimeline


@dataclass(frozen=True)
class ReplayPosition(Position):
    """A position in a replay: ``backward_step`` is ``(k, n)``, k replay steps of n done."""

    replay: bool = True


@dataclass
class ReplayPause:
    """What a replay's ``paused`` event carries where a live one carries the interpreter's Pause.

    ``step`` is the ``ReplayStep`` that just ran (None before the first node); there is no
    statement, so ``line`` and ``stmt`` are None and the names are empty.
    """

    step: ReplayStep | None
    iteration: int | None
    kind: str = "backward_step"
    line: int | None = None
    stmt: Any = None
    depth: int = 0
    stack: tuple = ()
    loop_iterations: tuple = ()
    globals: dict = field(default_factory=dict)
    locals: dict = field(default_factory=dict)


class RecordedSession(EventPublisher):
    """Replays a recorded backward pass (and its recorded iterations) as a debugging session.

    Parameters
    ----------
    source : str, os.PathLike, GraphFile or Recorded
        A recorded file (``engine.record.is_recorded``).
    filename : str
        Shown in messages.

    Notes
    -----
    It opens finished (the whole recording shown, as a run that has ended); ``open()`` publishes
    that state to subscribers. Commands run synchronously on whatever thread calls them, one at a
    time; ``pause()`` and ``stop()`` may be called from any thread.

    Raises
    ------
    ValueError
        When the file holds no recorded graph.
    """

    can_edit = False  # no script: the builder has nothing to append to
    is_recorded = True  # ``graph()`` is the recording's graph at the replay step

    def __init__(self, source, *, filename: str = "<recorded>") -> None:
        self.recorded = _recorded_of(source)
        meta = getattr(source, "metadata", None) or {}
        summary = meta.get("gradstep.record") if isinstance(meta, dict) else None
        # the recorder's per-iteration summary (loss, grad_norms): norms of grads too large to keep
        self.summaries: list = list((summary or {}).get("iterations") or [])
        self._replay_optimizers: dict[int, tuple] = {}  # iteration -> its optimizers
        self.filename = filename
        self.source = ""
        self.iteration_count = len(self.recorded.iterations)
        self._bases: dict[int, Any] = {}  # iteration -> its recorded graph
        self._structure = object()  # stands for the recording's edges (graph.layout.STRUCTURE)
        self._steps: dict[int, list] = {}  # iteration -> its ReplaySteps
        self._records: dict[tuple, TensorRecord] = {}  # shared between snapshots
        self._named_cache: dict[int, list] = {}  # iteration -> its named tensors (_named)
        self._states: dict[int, dict] = {}  # iteration -> optimizer state after its step
        self._curves: dict[tuple, tuple] = {}  # (finished, stepped) -> (grad norms, ratios)
        # How many nodes the backward ran, counted without making the steps (made on first use:
        # a 100,000-node recording opens without building 80,000 ReplaySteps first).
        self.steps_per_backward = sum(
            node.kind != "tensor" and node.attrs.get("executed_index") is not None
            for node in self.recorded.nodes)
        self.timeline = self._build_timeline()
        self.counters = Counters()
        self.breakpoints: dict[int, LineBreakpoint] = {}
        self.data_breakpoints = DataBreakpoints()
        self.losses = self._losses()
        self.console: list[str] = []
        self.warnings: list = []
        self.namespace: dict = {}
        self.error = None
        self.explanation = None
        self.status = Status.FINISHED
        self._index = len(self.timeline) - 1
        self._pause: ReplayPause | None = None
        self._position: ReplayPosition | None = None
        with collector_paused():  # the graph and the snapshot: many objects, no cycles
            self._snapshot = self._snapshot_at(self._index)
        self._set_counters(self._index)
        self._subscribers: list[Callable[[SessionEvent], None]] = []  # for EventPublisher
        self._lock = threading.RLock()
        self._busy = False
        self._pause_requested = threading.Event()
        self._stop_requested = threading.Event()
        keep_if_large(len(self.recorded.nodes))  # the graph, the snapshot: long-lived

    # ------------------------------------------------------------------ the recording
    @property
    def _last_iteration(self) -> int:
        return max(0, self.iteration_count - 1)

    def base_graph(self, iteration: int):
        """The recorded graph with ``iteration``'s tensors, every step done (cached)."""
        if iteration not in self._bases:
            index = iteration if self.iteration_count else -1
            graph = self._bases[iteration] = recorded_graph(self.recorded, index)
            # every iteration, every step: one structure (the layout then compares no edges)
            graph.graph[STRUCTURE] = self._structure
        return self._bases[iteration]

    def steps(self, iteration: int) -> list[ReplayStep]:
        """The replay steps of ``iteration``'s backward, in PyTorch's execution order."""
        if iteration not in self._steps:
            graph = self.base_graph(iteration)
            self._steps[iteration] = [_with_leaf_write(graph, s) for s in replay_steps(graph)]
        return self._steps[iteration]

    def point_of(self, index: int) -> tuple[int, int]:
        """(iteration, steps done) of timeline point ``index``; the end is the last iteration's
        last step."""
        per = self.steps_per_backward + 1
        if index >= len(self.timeline) - 1:
            return self._last_iteration, self.steps_per_backward
        return index // per, index % per

    def _build_timeline(self) -> ReplayTimeline:
        return ReplayTimeline(self.steps_per_backward, self.iteration_count,
                              [bool(state.optimizers) for state in self.recorded.iterations])

    def _losses(self) -> list[tuple[int, float]]:
        out = []
        for i, state in enumerate(self.recorded.iterations):
            loss = state.tensors.get("loss")
            if loss is not None and np.size(loss.value) == 1:
                out.append((i, float(np.asarray(loss.value).reshape(()))))
        return out

    # ------------------------------------------------------------------ subscribers
    def _emit(self, event: SessionEvent) -> None:
        self._send(event)

    def open(self) -> None:
        """Publish the state the replay opens in (the whole recording, finished)."""
        with self._lock:
            self._publish(self._index, reason="opened", travelled=True, walked=())
            self._emit(ev.TimelineChanged(len(self.timeline)))

    # ------------------------------------------------------------------ breakpoints
    def set_data_breakpoints(self, spec: DataBreakpoints) -> None:
        """Stop on what ``spec`` switches on (a copy is kept)."""
        self.data_breakpoints = replace(spec)

    # No lines to stop at: line breakpoints are kept (the window saves them) but never hit, so
    # a condition is kept as text, never compiled.
    def set_breakpoint(self, line: int, condition: str | None = None) -> LineBreakpoint:
        kept = self.breakpoints[int(line)] = LineBreakpoint(int(line), condition or None)
        return kept

    def clear_breakpoint(self, line: int) -> None:
        self.breakpoints.pop(int(line), None)

    def break_on_nan(self, enabled: bool = True) -> None:
        """Stop at a step that sent or received a NaN or an infinity."""
        self.data_breakpoints.nan = bool(enabled)

    def break_on_grad_norm(self, threshold: float | None) -> None:
        """Stop at a step that wrote a leaf gradient with an L2 norm above ``threshold``."""
        self.data_breakpoints.grad_norm = None if threshold is None else float(threshold)

    def break_on_backward(self, enabled: bool = True) -> None:
        """Stop before each iteration's backward (its step 0)."""
        self.data_breakpoints.on_backward = bool(enabled)

    def break_on_zero_grad(self, enabled: bool = True) -> None:
        self.data_breakpoints.on_zero_grad = bool(enabled)  # not recorded: never hit

    def break_on_step(self, enabled: bool = True) -> None:
        """Stop after an iteration's backward, before its optimizer step."""
        self.data_breakpoints.on_step = bool(enabled)

    # ------------------------------------------------------------------ reading the state
    @property
    def position(self) -> ReplayPosition | None:
        return self._position

    @property
    def pause_state(self) -> ReplayPause | None:
        return self._pause if self.status == Status.PAUSED else None

    @property
    def current_step(self) -> ReplayStep | None:
        """The step that ran last (None before the first node and at the end)."""
        return self._pause.step if self.status == Status.PAUSED and self._pause else None

    @property
    def point_index(self) -> int:
        return self._index

    def visible_names(self) -> dict:
        return {}  # nothing runs: there are no live objects behind a recording

    def module_names(self) -> dict:
        return {}

    @property
    def last_backward_steps(self) -> tuple:
        i, k = self.point_of(self._index)
        return tuple(self.steps(i)[:k])

    def graph(self, previous=None):
        """The graph as it stands at the current point (``graph_at_step``).

        With ``previous`` (the graph shown before), ``graph.graph["changed"]`` lists the nodes
        whose executed flag, value or grad differ, as ``build_graph(..., previous=)`` does.
        """
        i, k = self.point_of(self._index)
        graph = graph_at_step(self.base_graph(i), k)
        graph.graph["added"], graph.graph["removed"] = [], []
        if previous is not None and previous._node.keys() == graph._node.keys():
            before = previous._node
            # a dict graph_at_step shares with the previous graph did not change
            graph.graph["changed"] = [n for n, a in graph._node.items()
                                      if a is not before[n] and _node_changed(a, before[n])]
        return graph

    def snapshot(self, point_index: int | None = None) -> Snapshot | None:
        """The ``Snapshot`` at a timeline point (the current one by default)."""
        if point_index is None:
            return self._snapshot
        if not 0 <= point_index < len(self.timeline):
            return None
        return self._snapshot_at(point_index)

    def console_at(self, point_index: int) -> list[str]:
        return []

    def panels_feed(self, point_index: int | None = None) -> ReplayFeed:
        """What the panels show at a point (the current one by default), from the recording.

        The live panels learn it from the engine's events; here every number is the file's:
        the training curves of the iterations whose backward had started by then (loss) and
        finished (gradient norms), the update ratio of each recorded step, each ``.grad``'s
        story and each parameter's latest ``optimizer.step()`` (before = that iteration's value,
        grad, state before and after; after = the next iteration's value, None after the last).
        """
        index = self._index if point_index is None else int(point_index)
        i, k = self.point_of(index)
        end = index == len(self.timeline) - 1
        iterations = self.recorded.iterations
        backward = self._backward_count(index)
        snapshot = self._snapshot if point_index is None else self._snapshot_at(index)
        finished = [j for j in range(min(backward, self.iteration_count))
                    if j < i or end or k >= self.steps_per_backward]
        stepped = self._stepped(index)
        key = (tuple(finished), tuple(stepped))
        if key not in self._curves:  # the same at every step of an iteration: made once
            self._curves[key] = (_largest(self._series(finished, self._grad_norm)),
                                 self._series(stepped, self._update_ratio))
        norms, ratios = self._curves[key]
        history = TrainingHistory.from_series(
            [self._loss_of(j) for j in range(backward)], norms,
            {name: ratios[name] for name in norms if name in ratios})
        stories = {}
        for name, rec in snapshot.tensors.items():
            if rec.grad is not None:
                at = i + 1 if not end else len(iterations) or 1
                stories[name] = BufferState(None, (Contribution(backward, backward, rec.grad),),
                                            True, note=f"recorded: the .grad torch's backward() "
                                            f"left in iteration {at}")
        # the hyper-parameters the latest step shown ran with (a scheduler changes the lr)
        shown = stepped[-1] if stepped else min(i, len(iterations) - 1)
        return ReplayFeed(self._optimizers(shown), self._steps_at(stepped), stories, history)

    # -- the panels' numbers, from the recorded iterations
    def _backward_count(self, index: int) -> int:
        i, k = self.point_of(index)
        return i + (1 if k > 0 or index == len(self.timeline) - 1 else 0)

    def _stepped(self, index: int) -> list[int]:
        """The iterations whose ``optimizer.step()`` had run by point ``index``."""
        i, _ = self.point_of(index)
        until = self.iteration_count if index == len(self.timeline) - 1 else i
        return [j for j in range(until) if self.recorded.iterations[j].optimizers]

    def _loss_of(self, j: int) -> float:
        return dict(self.losses).get(j, float("nan"))

    def _series(self, js, value) -> dict[str, tuple[list, list]]:
        out: dict[str, tuple[list, list]] = {}
        for j in js:
            for name, y in value(j).items():
                xs, ys = out.setdefault(name, ([], []))
                xs.append(j)
                ys.append(y)
        return out

    def _grad_norm(self, j: int) -> dict[str, float]:
        """Iteration ``j``'s gradient norm per parameter (the file's summary for a grad too
        large to keep)."""
        summary = self._summary(j).get("grad_norms") or {}
        out = {}
        for name, t in self.recorded.iterations[j].tensors.items():
            if t.grad is not None:
                out[name] = norm(t.grad)
            elif isinstance(summary.get(name), (int, float)):
                out[name] = float(summary[name])
        return out

    def _update_ratio(self, j: int) -> dict[str, float]:
        """‖Δw‖ / ‖w‖ of iteration ``j``'s step (known when the next iteration was recorded)."""
        iterations = self.recorded.iterations
        if j + 1 >= len(iterations):
            return {}
        out = {}
        for name in self._param_names(j):
            before, after = iterations[j].tensors.get(name), iterations[j + 1].tensors.get(name)
            if before is None or after is None or before.value.shape != after.value.shape:
                continue
            denom = norm(before.value)
            out[name] = norm(np.asarray(after.value, np.float64) - before.value) / denom \
                if denom else float("nan")
        return out

    def _param_names(self, j: int) -> list[str]:
        names: list[str] = []
        for opt in self.recorded.iterations[j].optimizers.values():
            for group in opt.param_groups:
                names += [n for n in group.get("params", ()) if n not in names]
        return names

    def _summary(self, j: int) -> dict:
        summaries = self.summaries
        return summaries[j] if j < len(summaries) and isinstance(summaries[j], dict) else {}

    def _optimizers(self, j: int) -> tuple[ReplayOptimizer, ...]:
        """The recorded optimizers with iteration ``j``'s groups (an optimizer that iteration
        did not record: its first recorded iteration's). Each iteration keeps its own
        hyper-parameters: a scheduler's lr at iteration 3 is not iteration 1's."""
        cached = self._replay_optimizers.get(j)
        if cached is None:
            found: dict[str, ReplayOptimizer] = {}
            iterations = self.recorded.iterations
            for state in [*iterations[j:j + 1], *iterations]:
                for name, opt in state.optimizers.items():
                    if name in found:
                        continue
                    shapes = {p: tuple(np.shape(state.tensors[p].value))
                              for g in opt.param_groups for p in g.get("params", ())
                              if p in state.tensors}
                    found[name] = ReplayOptimizer(name, opt.type, tuple(
                        dict(g) for g in opt.param_groups), shapes)
            cached = self._replay_optimizers[j] = tuple(found.values())
        return cached

    def _steps_at(self, stepped: list[int]) -> dict:
        """(optimizer, parameter) -> the parameter's latest recorded step among ``stepped``."""
        if not stepped:
            return {}
        iterations = self.recorded.iterations
        j = stepped[-1]
        previous = iterations[j - 1].optimizers if j > 0 and (j - 1) in stepped else {}
        out = {}
        for oname, opt in iterations[j].optimizers.items():
            before_state = previous.get(oname)
            for group in opt.param_groups:
                for pname in group.get("params", ()):
                    t = iterations[j].tensors.get(pname)
                    if t is None:
                        continue
                    nxt = iterations[j + 1].tensors.get(pname) if j + 1 < len(iterations) \
                        else None
                    prev = None
                    if before_state is not None and pname in before_state.state:
                        prev = state_arrays(before_state.state[pname])
                    out[(oname, pname)] = StepRecord(
                        len(stepped), None, None, np.asarray(t.value),
                        None if nxt is None else np.asarray(nxt.value),
                        None if t.grad is None else np.asarray(t.grad), prev,
                        state_arrays(opt.state.get(pname, {})), kind=opt.type)
        return out

    # ------------------------------------------------------------------ thread-safe controls
    def pause(self) -> None:
        """Ask a running ``continue_`` to stop at the next step (thread-safe)."""
        if self._busy:
            self._pause_requested.set()

    def stop(self) -> None:
        """End the replay where it is (thread-safe)."""
        if self.status != Status.PAUSED and not self._busy:
            return
        self._stop_requested.set()
        if self._lock.acquire(blocking=False):
            try:
                if not self._busy:
                    self._stopped()
            finally:
                self._lock.release()

    # ------------------------------------------------------------------ commands
    def continue_(self):
        """Replay to the end, or to the next data breakpoint."""
        with self._command("continue"):
            return self._walk(self._stop_reason)

    def step_into(self):
        """Replay the next node."""
        with self._command("step_into"):
            return self._walk(lambda index: "step")

    def step_over(self):
        """Replay the next node (a node is the smallest step a recording has)."""
        with self._command("step_over"):
            return self._walk(lambda index: "step")

    def step_out(self):
        """Replay to the end of the current backward (or the next point when already there)."""
        with self._command("step_out"):
            i, k = self.point_of(self._index)
            last = k >= self.steps_per_backward
            return self._walk(lambda index: "step out" if last or self.point_of(index) ==
                              (i, self.steps_per_backward) else None)

    def run_to_end(self):
        """Replay to the end: a recording's data breakpoints do not stop it."""
        with self._command("run_to_end"):
            return self._walk(lambda index: None)

    def run_to_line(self, line: int):
        """A recording has no lines: like ``continue_``."""
        with self._command("run_to_line"):
            return self._walk(self._stop_reason)

    def next_iteration(self):
        """Go to the next recorded iteration, before its backward (the end after the last)."""
        with self._command("next_iteration"):
            i, _ = self.point_of(self._index)
            return self._walk(lambda index: "iteration" if self.point_of(index) == (i + 1, 0)
                              else None)

    def run_iterations(self, n: int, progress: Callable[[int, int], None] | None = None):
        """``next_iteration`` ``n`` times; ``progress(k, n)`` after each."""
        with self._command("run_iterations"):
            n, done = int(n), 0
            if n <= 0:
                return self.pause_state

            def until(index):
                nonlocal done
                i, k = self.point_of(index)
                if k != 0 or i == 0:
                    return None
                done += 1
                if progress is not None:
                    progress(done, n)
                return f"{done} iterations" if done >= n else None

            return self._walk(until)

    def restart(self):
        """Replay from the start: the first iteration, before its backward."""
        with self._command("restart"):
            self._emit(ev.Reset())
            self._move(0, reason="restart", travelled=False, walked=(), full=True)
            return self.pause_state

    def go_to(self, point_index: int):
        """Travel to timeline point ``point_index``."""
        with self._command("go_to"):
            index = int(point_index)
            if not 0 <= index < len(self.timeline):
                raise IndexError(f"timeline point {index} out of range: {len(self.timeline)}")
            self._move(index, reason="time travel", travelled=True, walked=(), full=True)
            return self.pause_state

    # ------------------------------------------------------------------ machinery
    @contextmanager
    def _command(self, name: str):
        with self._lock:
            self._busy = True
            try:
                # After the end only restart and go_to move; other commands are no-ops.
                if name in ("restart", "go_to") or self.status == Status.PAUSED:
                    self._emit(ev.Running(name))
                yield
            finally:
                self._busy = False
                self._pause_requested.clear()
                if self._stop_requested.is_set():
                    self._stopped()

    def _walk(self, until: Callable[[int], str | None]):
        """Move point by point until ``until(index)`` names a reason, or to the end."""
        if self.status != Status.PAUSED:
            return None
        walked: list = []
        index = self._index
        end = len(self.timeline) - 1
        while index < end:
            index += 1
            i, k = self.point_of(index)
            if k > 0 and index < end:
                walked.append(self.steps(i)[k - 1])
            if index == end:
                break
            reason = until(index)
            if reason is None and (self._pause_requested.is_set()
                                   or self._stop_requested.is_set()):
                reason = "paused"
            if reason is not None:
                self._move(index, reason=reason, travelled=False, walked=walked)
                return self.pause_state
            if k == self.steps_per_backward:
                walked = []  # the diff lists the steps of the backward it stops in
        self._move(end, reason="finished", travelled=False, walked=walked)
        return None

    def _stop_reason(self, index: int) -> str | None:
        """Why ``continue_`` stops at point ``index`` (a data breakpoint), or None."""
        i, k = self.point_of(index)
        d = self.data_breakpoints
        n = self.steps_per_backward
        if k == 0 and i > 0 and d.on_backward:
            return "backward"
        if k == n and i < self.iteration_count - 1 and d.on_step:
            return "optimizer step"
        if k == 0:
            return None
        step = self.steps(i)[k - 1]
        if d.nan and any(non_finite(_array(g)) for g in _step_arrays(step)):
            return f"NaN or infinity in {step.node.name()}"
        if d.grad_norm is not None:
            for leaf, g in step.leaf_writes:
                if g is not None and float(np.linalg.norm(np.asarray(g, np.float64))) > \
                        d.grad_norm:
                    return f"grad norm of {leaf} above {d.grad_norm:g}"
        return None

    def _move(self, index: int, *, reason: str, travelled: bool, walked, full=False) -> None:
        self._index = index
        self.status = Status.FINISHED if index == len(self.timeline) - 1 else Status.PAUSED
        self._publish(index, reason=reason, travelled=travelled, walked=walked, full=full)

    def _publish(self, index: int, *, reason: str, travelled: bool, walked, full=False) -> None:
        snap = self._snapshot_at(index)
        diff = compute_diff(None if (travelled or full) else self._snapshot, snap, tuple(walked),
                            (), full=travelled or full)
        self._snapshot = snap
        self._set_counters(index)
        point = self.timeline[index]
        if self.status == Status.PAUSED:
            i, k = self.point_of(index)
            step = self.steps(i)[k - 1] if k > 0 else None
            self._pause = ReplayPause(step, point.iteration)
            self._position = ReplayPosition(None, point.iteration, point.backward_step, 0, index)
            self._emit(ev.Paused(self._pause, diff, self._position, point, reason, snap,
                                 travelled=travelled))
        else:
            self._pause = None
            self._position = None
            # A live finished event has no snapshot (the panels read the namespace); a replay's
            # names are not live objects, so it carries the recorded state instead.
            self._emit(ev.Finished(self.namespace, diff, point, travelled=travelled,
                                   snapshot=snap))

    def _stopped(self) -> None:
        self._stop_requested.clear()
        if self.status != Status.PAUSED:
            return
        self.status = Status.STOPPED
        self._emit(ev.Finished(self.namespace, None, None, stopped=True))

    def _set_counters(self, index: int) -> None:
        # Counted as a live run would have: each iteration is one backward and one step.
        end = index == len(self.timeline) - 1
        self.counters.backward = self._backward_count(index)
        self.counters.step = len(self._stepped(index))
        self.counters.iteration = None if end else self.timeline[index].iteration

    def _snapshot_at(self, index: int) -> Snapshot:
        """The named tensors as they stood at point ``index``: values, and the grads written by
        then (``graph_at_step``'s rule: a grad shows once the node writing it has run)."""
        i, k = self.point_of(index)
        tensors = {}
        for name, node_id, attrs, first_write, producer in self._named(i):
            shown = first_write is not None and first_write < k
            tensors[name] = self._record(i, node_id, attrs, shown, producer)
        return Snapshot(tensors, self._optimizer_state(index), {}, 0)

    def _named(self, iteration: int) -> list:
        """The named tensors of ``iteration``'s graph: (name, id, attrs, the replay step of the
        first node that writes its grad or None, the ``grad_fn``'s name), made once."""
        named = self._named_cache.get(iteration)
        if named is None:
            graph = self.base_graph(iteration)
            nodes, succ, pred = graph._node, graph._adj, graph._pred
            named = []
            for node_id, a in nodes.items():
                if a["kind"] != "tensor" or not a.get("name") or a.get("value") is None:
                    continue
                first_write = None
                if a.get("grad") is not None:
                    writers = succ[node_id] if a["is_leaf"] else pred[node_id]
                    steps = [nodes[w].get("executed_index") for w in writers]
                    steps = [s for s in steps if s is not None]
                    first_write = min(steps) if steps else None
                producer = next((nodes[p].get("node_name") for p in pred[node_id]
                                 if nodes[p]["kind"] != "tensor"), None)
                named.append((a["name"], node_id, a, first_write, producer))
            self._named_cache[iteration] = named
        return named

    def _optimizer_state(self, index: int) -> dict:
        """``(optimizer, parameter, key)`` -> value: the state the last step by then left."""
        stepped = self._stepped(index)
        if not stepped:
            return {}
        j = stepped[-1]
        cached = self._states.get(j)
        if cached is None:
            cached = {}
            for oname, opt in self.recorded.iterations[j].optimizers.items():
                for pname, entry in opt.state.items():
                    for key, value in entry.items():
                        if isinstance(value, np.ndarray):
                            value = np.array(value, copy=True)
                            value.flags.writeable = False
                        cached[(oname, pname, str(key))] = value
            self._states[j] = cached
        return cached

    def _record(self, iteration: int, node_id: str, a: dict, with_grad: bool,
                producer: str | None) -> TensorRecord:
        key = (iteration, node_id, with_grad)
        record = self._records.get(key)
        if record is None:
            record = TensorRecord(
                value=np.asarray(a["value"]), grad=np.asarray(a["grad"]) if with_grad else None,
                requires_grad=bool(a.get("requires_grad")), is_leaf=bool(a.get("is_leaf")),
                retains_grad=bool(a.get("retains_grad")),
                grad_fn=None if a.get("is_leaf") else producer)
            self._records[key] = record
        return record


MAX_CURVES = 16
"""Parameters plotted per training curve in a replay: the largest gradient norms. A legend entry
per parameter costs the plot a re-layout of every entry (quadratic): a ResNet's hundreds of
parameters took the first paint from a second to a minute."""


def _largest(series: dict, n: int = MAX_CURVES) -> dict:
    if len(series) <= n:
        return series
    kept = set(ranked(series, n)[0])
    return {name: series[name] for name in series if name in kept}


def _with_leaf_write(graph, step: ReplayStep) -> ReplayStep:
    """An accumulator's step writing the leaf's recorded grad when its edge kept no gradient
    (an earlier iteration keeps its tensors' grads but not the edges')."""
    if step.node.kind != "accumulate" or step.leaf_writes:
        return step
    leaf = graph.nodes[step.node_id].get("variable")
    grad = graph.nodes[leaf].get("grad") if leaf in graph else None
    if grad is None:
        return step
    return replace(step, grads_in=[grad], leaf_writes=[(leaf, grad)])


def _step_arrays(step: ReplayStep):
    yield from step.grads_in
    yield from step.grads_out
    for _, g in step.leaf_writes:
        yield g


def _array(g):
    return None if g is None else np.asarray(g)


def _node_changed(now: dict, before: dict) -> bool:
    if now["kind"] == "tensor":
        return now.get("grad") is not before.get("grad") or \
            now.get("value") is not before.get("value")
    return now.get("executed_index") != before.get("executed_index")
