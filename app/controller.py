"""The Qt side of a debugging session: runs its commands off the GUI thread, publishes its events.

Every view talks to the engine through one ``SessionController``:

- user actions call the command methods (``continue_``, ``step_over``, ``step_into``, ...); they
  are queued to one persistent worker thread, because a session command runs synchronously until
  the next pause and may take seconds (a training loop);
- ``stop()`` and ``pause()`` go straight to the session from the GUI thread (they are thread-safe
  in the session) so they work while a long command runs;
- session events arrive on the worker thread, are queued to the GUI thread, and are published in
  batches at the screen's refresh rate: ``events_arrived(list)`` carries every event in order,
  ``state_changed(SessionSnapshot)`` the latest state only, so a view never redraws faster than
  the screen can show while a command runs; when the last queued command ends, its state is
  published at once (a step repaints as soon as it is done, not a frame later).

Panels read ``snapshot`` (or the one passed with ``state_changed``) and never call the session's
commands themselves.

A script runs in a worker process (``engine.session.worker.RemoteSession``), never in this one:
the command thread only waits on the worker's pipe, ``stop()`` asks politely and kills a worker
stuck in a C call after 0.5 s (a fresh one re-executes to the point shown), and a worker that dies
becomes an ``Error`` event. ``GRADSTEP_WORKER=0`` in the environment (or
``SessionController(use_worker=False)``) runs it here instead, on the command thread: for
debugging, and for tests that read the script's live objects. The recording player always runs
here (it runs no user code).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from engine.session import events as ev
from engine.session.events import Status

from .collector import MainThreadCollector


def worker_enabled() -> bool:
    """Scripts run in a worker process (engine.session.worker) unless ``GRADSTEP_WORKER=0``
    (debugging, and tests that need the session in this process)."""
    return os.environ.get("GRADSTEP_WORKER", "1") != "0"


# The window shows a stopped run as finished (the status bar says "Stopped").
_SHOWN_STATUS = {Status.STOPPED: Status.FINISHED}


@dataclass
class SessionSnapshot:
    """What the views draw: the state of the session when it last came to rest (or the latest)."""

    session: Any = None  # engine.session.DebugSession
    status: Status = Status.IDLE
    graph: Any = None  # networkx.DiGraph from engine.graph.build_graph, or None
    layout: Any = None  # engine.graph.Layout for ``graph``
    pause: ev.Paused | None = None  # the last Paused event (carries Pause, diff, position)
    error: ev.Error | None = None  # the last Error event while status is FAILED
    position: Any = None
    counters: Any = None
    timeline: Any = None
    workspace: Any = None  # engine.builder.Workspace: the names the builder offers (None: no build)
    path: str | None = None
    version: int = 0  # grows with each published snapshot: cheap "did anything change?"


@dataclass
class _Job:
    name: str
    run: Callable[[], Any]
    generation: int
    needs_graph: bool = True
    extra: dict = field(default_factory=dict)


class _CommandWorker:
    """Runs queued jobs one at a time on one persistent Python thread.

    A Python thread, not a QThread: the interpreter pauses inside ``backward()`` by switching
    greenlets, and a greenlet belongs to its thread's Python state. PySide gives a QThread a fresh
    Python thread state for each slot call, so a greenlet made in one command would be dead in
    the next (a segfault); a Python thread keeps one state for its whole life.
    """

    def __init__(self, done: Callable[[_Job, Any, BaseException | None], None]) -> None:
        self.generation = 0  # jobs from an older generation were cancelled by stop/open
        self._done = done
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="gradstep-session", daemon=True)
        self._thread.start()

    def submit(self, job: _Job) -> None:
        self._queue.put(job)

    def close(self, timeout: float = 5.0) -> None:
        self._queue.put(None)
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if job.generation != self.generation:
                self._done(job, None, None)  # cancelled: only the busy count cares
                continue
            try:
                result = job.run()
            except BaseException as exc:
                self._done(job, None, exc)
                continue
            self._done(job, result, None)


class SessionController(QObject):
    """Owns the current ``engine.session.DebugSession`` (a ``Session`` or a recording's
    ``RecordedSession``) and the thread its commands run on."""

    # Published on the GUI thread, at most once per screen refresh.
    state_changed = Signal(object)  # SessionSnapshot
    events_arrived = Signal(list)  # every SessionEvent since the last batch, in order
    # Published as they happen (rare).
    session_replaced = Signal(object)  # the new Session (a file was opened or the text changed)
    busy_changed = Signal(bool)  # a command is running on the worker
    load_failed = Signal(str, object)  # path, exception: the previous session is kept
    command_failed = Signal(str, object)  # command name, exception (a bug or a refused command)
    tensor_selection_requested = Signal(str)  # a panel asked to show a tensor (display name)

    _job_done = Signal(object, object, object)
    _event_arrived = Signal(object)

    def __init__(self, parent: QObject | None = None, *, use_worker: bool | None = None) -> None:
        super().__init__(parent)
        # Scripts run in a worker process (RemoteSession), or on this process's command thread
        # with use_worker=False (GRADSTEP_WORKER=0).
        self.use_worker = worker_enabled() if use_worker is None else bool(use_worker)
        self.snapshot = SessionSnapshot()
        self.source = ""
        self._unsubscribe: Callable[[], None] | None = None
        self._pending_events: list = []
        self._pending_snapshot = False
        self._busy_jobs = 0
        self._last_view_state: dict | None = None  # graph and layout the views have

        # Both signals are emitted on the worker thread and queued to this (GUI) thread.
        self._job_done.connect(self._on_job_done)
        self._event_arrived.connect(self._on_event)
        self._worker = _CommandWorker(self._job_done.emit)
        # collections on this thread, between commands only (app/collector.py)
        self._collector = MainThreadCollector(lambda: self._busy_jobs > 0, self)
        from PySide6.QtCore import QCoreApplication

        app = QCoreApplication.instance()
        if app is not None:  # never leave the thread running when the application quits
            app.aboutToQuit.connect(self.shutdown)

        # Redraws are coalesced: events pile up and one timer tick publishes them.
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(_frame_interval_ms())
        self._flush_timer.timeout.connect(self._flush)

    # ----------------------------------------------------------------------------- loading
    @property
    def session(self):
        return self.snapshot.session

    @property
    def busy(self) -> bool:
        return self._busy_jobs > 0

    def load_source(self, source: str, *, path: str | None = None, breakpoints=(),
                    seed: int = 0, limits=None, resume=None) -> bool:
        """Replace the session with a new one for ``source``. Returns False if it was refused."""
        if self.use_worker:
            from engine.session.worker import RemoteSession as Session
        else:
            from engine.session import Session

        try:
            session = Session(source, seed=seed, limits=limits, breakpoints=tuple(breakpoints),
                              filename=path or "<script>", resume=resume)
        except Exception as exc:
            self.load_failed.emit(path or "<script>", exc)
            return False
        self._install(session, source, path)
        return True

    def load_recorded(self, graph_file, *, path: str | None = None) -> bool:
        """Replace the session with a replay of a file recorded from PyTorch (engine.record).

        The replay opens finished, showing the whole recording; stepping replays its backward.
        """
        from engine.record.player import RecordedSession

        try:
            session = RecordedSession(graph_file, filename=path or "<recorded>")
        except Exception as exc:
            self.load_failed.emit(path or "<recorded>", exc)
            return False
        self._install(session, graph_file.script, path)
        self._submit("open", session.open)  # publishes the opening state to every view
        return True

    def _install(self, session, source: str, path: str | None) -> None:
        self._cancel_queued()
        old = self.snapshot.session
        if old is not None:
            try:
                if getattr(old, "runs_in_worker", False):
                    old.close()  # ends its process (and any command still waiting on it)
                else:
                    old.stop()
            except Exception:
                pass
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.source = source
        self._last_view_state = None
        self._pending_events.clear()
        self._unsubscribe = session.subscribe(self._event_arrived.emit)
        self.snapshot = SessionSnapshot(session=session, status=Status.IDLE, path=path,
                                        counters=session.counters,
                                        version=self.snapshot.version + 1)
        self.session_replaced.emit(session)
        # The graph of a fresh session (empty, or a saved state's) is built like any other.
        self._submit("load", lambda: None)

    # ---------------------------------------------------------------------------- commands
    def continue_(self) -> None:
        self._command("continue_")

    def step_over(self) -> None:
        self._command("step_over")

    def step_into(self) -> None:
        self._command("step_into")

    def step_out(self) -> None:
        self._command("step_out")

    def restart(self) -> None:
        self._command("restart")

    def run_to_end(self) -> None:
        """Run to the end past every breakpoint (the builder's re-run after writing a line)."""
        self._command("run_to_end")

    def next_iteration(self) -> None:
        self._command("next_iteration")

    def run_to_line(self, line: int) -> None:
        self._command("run_to_line", line)

    def go_to(self, point_index: int) -> None:
        self._command("go_to", point_index)

    def current_point(self) -> int | None:
        """The timeline point the views show (None before the first pause)."""
        snap = self.snapshot
        timeline = snap.timeline
        if self.busy or not timeline:
            return None
        if snap.status == Status.PAUSED and getattr(snap.position, "point_index", None) \
                is not None:
            return snap.position.point_index
        if snap.status in (Status.FINISHED, Status.FAILED):
            return len(timeline) - 1  # the end of the run is its last point
        return None

    def previous_point(self, *, into: bool = False) -> int | None:
        """Where Step Back goes: the previous statement at the current depth or shallower
        (``into``: the previous point of any kind, backward steps included); None at the
        first point or while a command runs."""
        here = self.current_point()
        if not here:
            return None
        timeline = self.snapshot.timeline
        if into:
            return here - 1
        depth = timeline[here].depth if timeline[here].kind != "finished" else 0
        statements = [i for i in range(here - 1, -1, -1) if timeline[i].kind == "statement"]
        shallow = [i for i in statements if timeline[i].depth <= depth]
        return (shallow or statements or [None])[0]

    def run_iterations(self, count: int, progress: Callable[[int, int], None] | None = None):
        """Run ``count`` iterations; ``progress(done, total)`` is called on the worker thread."""
        if progress is None:
            self._command("run_iterations", count)
        else:
            self._command("run_iterations", count, progress=progress)

    def stop(self) -> None:
        """Stop now, even in the middle of a long command (thread-safe in the session)."""
        self._cancel_queued()
        if self.session is not None:
            self.session.stop()

    def pause(self) -> None:
        if self.session is not None:
            self.session.pause()

    def set_breakpoint(self, line: int, condition: str | None = None) -> None:
        # Breakpoints are plain data in the session: setting one while a command runs is safe.
        if self.session is not None:
            self.session.set_breakpoint(line, condition)

    def clear_breakpoint(self, line: int) -> None:
        if self.session is not None:
            self.session.clear_breakpoint(line)

    def set_data_breakpoints(self, spec) -> None:
        """What the session stops on (``engine.files.DataBreakpoints``), set at once."""
        if self.session is not None:
            self.session.set_data_breakpoints(spec)

    def select_tensor(self, name: str) -> None:
        """A panel asks the window to select the tensor the script calls ``name``."""
        self.tensor_selection_requested.emit(name)

    def call(self, name: str, *args, **kwargs) -> None:
        """Queue any other ``DebugSession`` command by name."""
        self._command(name, *args, **kwargs)

    def shutdown(self) -> None:
        """Stop the session and the worker thread; call before the window goes away."""
        self._collector.release()
        if not self._worker.is_alive():
            return
        self._flush_timer.stop()
        session = self.session
        if getattr(session, "runs_in_worker", False):
            self._cancel_queued()
            session.close()
        else:
            self.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._worker.close()

    def wait_idle(self, timeout_ms: int = 5000) -> bool:
        """For scripts and benchmarks: block until the worker has nothing left to run.

        The wait sleeps in the event loop as ``exec()`` would (a spin here would take a core
        from the worker and from the next spare, and the figures with it); a coarse timer only
        wakes it to see the deadline."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QEventLoop, QTimer

        deadline = QDeadlineTimer(timeout_ms)
        wake = QTimer()
        wake.setInterval(50)
        wake.start()
        try:
            while self._busy_jobs or self._pending_snapshot or self._flush_timer.isActive():
                if deadline.hasExpired():
                    return False
                QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents
                                               | QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        finally:
            wake.stop()
        return True

    # ------------------------------------------------------------------------------ worker
    def _command(self, name: str, *args, **kwargs) -> None:
        session = self.session
        if session is None:
            return
        method = getattr(session, name)
        self._submit(name, lambda: method(*args, **kwargs))

    def _submit(self, name: str, run: Callable[[], Any]) -> None:
        session = self.session

        def job_body():
            result = run()
            # The graph is built where the state lives, while nothing else touches it.
            return result, _build_view_state(session, self._last_view_state)

        job = _Job(name, job_body, self._worker.generation)
        self._busy_jobs += 1
        if self._busy_jobs == 1:
            self.busy_changed.emit(True)
        self._worker.submit(job)

    def _cancel_queued(self) -> None:
        # Jobs already queued to the worker see a new generation and do nothing.
        self._worker.generation += 1

    @Slot(object, object, object)
    def _on_job_done(self, job: _Job, result, exc) -> None:
        self._busy_jobs = max(0, self._busy_jobs - 1)
        session = self.session
        if session is not None and self._busy_jobs == 0:
            # The job's events arrived before this (same thread, in order): the session is at
            # rest, and its own status is the truth.
            status = Status(session.status)
            self.snapshot.status = _SHOWN_STATUS.get(status, status)
            if self.snapshot.status != Status.PAUSED:
                self.snapshot.position = None
        if exc is not None:
            self.command_failed.emit(job.name, exc)
        elif result is not None:
            _, view_state = result
            if view_state is not None and view_state["session"] is self.session:
                self._last_view_state = view_state
                snap = self.snapshot
                snap.graph = view_state["graph"]
                snap.layout = view_state["layout"]
                snap.counters = view_state["counters"]
                snap.timeline = view_state["timeline"]
                snap.workspace = view_state["workspace"]
                self._schedule_flush()
        if self._busy_jobs == 0:
            self.busy_changed.emit(False)
            # At rest: nothing more is coming to coalesce with, so the views hear it now.
            self._flush_timer.stop()
            self._pending_snapshot = True
            self._flush()

    @Slot(object)
    def _on_event(self, event) -> None:
        self._pending_events.append(event)
        snap = self.snapshot
        match event:
            case ev.Running():
                snap.status = Status.RUNNING
            case ev.Paused(position=position):
                snap.status = Status.PAUSED
                snap.pause = event
                snap.error = None
                snap.position = position
            case ev.Finished():
                snap.status = Status.FINISHED
                snap.error = None
            case ev.Error():
                snap.status = Status.FAILED
                snap.error = event
            case ev.Reset():
                snap.status = Status.IDLE
                snap.pause = None
                snap.error = None
                snap.position = None
        self._schedule_flush()

    def _schedule_flush(self) -> None:
        self._pending_snapshot = True
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    @Slot()
    def _flush(self) -> None:
        events, self._pending_events = self._pending_events, []
        if events:
            self.events_arrived.emit(events)
        if self._pending_snapshot:
            self._pending_snapshot = False
            self.snapshot.version += 1
            self.state_changed.emit(self.snapshot)


def _build_view_state(session, previous: dict | None) -> dict | None:
    """Graph, layout, counters and timeline of ``session`` (on the worker thread).

    Built against the previous graph, so the graph lists what changed (the view redraws only
    that) and the layout is reused when only values changed (nothing on screen moves).
    """
    if session is None:
        return None
    from engine.graph import layout
    from engine.graph.layout import LAZY_NODES

    from .graph_view import drawn_folded

    same = previous is not None and previous["session"] is session
    # A live session builds its graph from its names; a recording's player gives the graph as
    # it stood at the replay step. Either way, against the previous one.
    graph = session.graph(previous["graph"] if same else None)
    workspace = None
    if getattr(session, "runs_in_worker", False):
        workspace = session.workspace  # described by the worker, where the names live
    elif session.can_edit:
        from engine.builder.workspace import describe

        # The builder appends at the end of the module: a paused function's locals are not
        # names that line could use.
        workspace = describe(session.module_names(), session.source)
    return {
        "workspace": workspace,
        "session": session,
        "graph": graph,
        "layout": layout(graph, previous["layout"] if same else None,
                         drawn_folded=graph.number_of_nodes() > LAZY_NODES
                         and drawn_folded(graph)),
        "counters": session.counters,
        "timeline": session.timeline,
    }


def _frame_interval_ms() -> int:
    from PySide6.QtGui import QGuiApplication

    screen = QGuiApplication.primaryScreen() if QGuiApplication.instance() else None
    rate = screen.refreshRate() if screen is not None else 60.0
    return max(8, int(1000 / (rate if rate and rate > 1 else 60.0)))
