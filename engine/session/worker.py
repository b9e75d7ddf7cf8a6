"""The script's own process: ``RemoteSession`` (the window's side) and the worker's main loop.

The window never runs a script: ``RemoteSession`` implements ``DebugSession`` by sending each
command to a worker process (``python -c`` on this module's ``_child_main``, over a socket pair
with ``multiprocessing.connection`` framing) where a ``Session`` runs it, and by keeping the last
state the worker sent back (status, position, timeline points, counters, console, losses,
warnings, the graph model, the builder's workspace): every query the views make is answered from
it, without a round trip. Events cross as ``engine.session.wire`` plain data.

Messages, window -> worker: ``("init", config)`` once, then ``("cmd", id, name, args, kwargs)``,
``("query", id, what, args)``, ``("replay", id, history)`` (run on the worker's main thread in
order) and ``("stop",)``, ``("pause",)``, ``("bp", line, condition)``, ``("clear_bp", line)``,
``("data_bp", spec)``, ``("exit",)`` (handled at once by the worker's control thread, while a
command runs). Worker -> window: ``("ready", pid)``, ``("events", id, [event, ...])`` (while a
long command runs), ``("progress", id, done, total)``, ``("done", id, events, state, outcome)``,
``("answer", id, value)``.

Stop: the polite request first (the session ends the run at its next statement); a command
still running ``grace`` seconds later (0.5 s) is stuck in one C call, so the worker is killed and
a fresh one (a warm spare, already imported) re-executes the history of commands to the point the
user last saw: runs are deterministic, so nothing is lost, and the views get a ``Paused`` there
(``travelled``, reason ``stopped``). Commands that ``pause()`` or ``stop()`` ended at a moment
the clock chose are kept in the history as ``Session.run_to_pause(raw_index)``.

A worker that dies otherwise (a segfault, the OS's memory or CPU limit) becomes an ``Error``
event, "the script's process ended (signal 11: segmentation fault) at line N", the line read from
a shared page the worker writes at every statement; the next command starts a fresh worker at the
point the user last saw. The worker runs under ``RLIMIT_AS`` (its address space at start plus
``Limits.max_total_bytes`` plus headroom) and ``RLIMIT_CPU`` (a backstop) where ``resource``
exists, and under a memory watchdog thread elsewhere.
"""

from __future__ import annotations

import itertools
import mmap
import os
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

from ..gc_policy import collector_paused, settle_after_imports
from ..graph.model import same_graph
from . import events as ev
from .events import EventPublisher, Status
from .wire import (
    GraphUnchanged,
    ListSender,
    PanelsData,
    SnapshotChain,
    error_info,
    from_wire,
    history_from,
    pause_info,
    script_error,
    to_wire,
)

GRACE_SECONDS = 0.5  # between the polite stop and the kill
HEADROOM_BYTES = 1 << 30  # address space above the start's and the tensors' budget
CPU_SECONDS = 3600  # RLIMIT_CPU backstop: CPU seconds a worker may use beyond its start
_FLUSH_SECONDS = 0.03  # a long command streams its events at this pace
# Commands that nearly always come to rest within _FLUSH_SECONDS: their Running waits for the
# rest of their events (one message each way); every other command announces itself at once
_STEPS = frozenset(("step_over", "step_into", "step_out"))
_SLOT = struct.Struct("qq")  # (line being run, why the worker ended itself: 1 = memory)

_SIGNAL_WORDS = {
    "SIGSEGV": "segmentation fault", "SIGBUS": "bus error", "SIGABRT": "aborted",
    "SIGKILL": "killed", "SIGXCPU": "CPU time limit", "SIGFPE": "floating-point exception",
    "SIGILL": "illegal instruction", "SIGTERM": "terminated",
}


def death_message(returncode: int | None, line: int | None, memory: bool = False) -> str:
    """What the window says when the worker ended without being asked."""
    if memory:
        what = "ran out of memory (the memory watchdog ended it)"
    elif returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        word = _SIGNAL_WORDS.get(name, name)
        what = f"ended (signal {-returncode}: {word})"
    else:
        what = f"ended (exit code {returncode})"
    where = f" at line {line}" if line else ""
    return f"the script's process {what}{where}"


# ==================================================================================== worker side
def _child_main(fd: int, control_fd: int, slot_fd: int, test_hooks: bool) -> None:
    """The worker process: warm up, wait for its script, then serve commands until told to exit
    or the window's end of the socket closes."""
    conn = Connection(fd)
    controls = Connection(control_fd)
    slot = mmap.mmap(slot_fd, _SLOT.size)
    # Import what every run needs before the window asks: a spare worker is ready at once.
    import numpy  # noqa: F401

    from .. import graph  # noqa: F401
    from ..builder import workspace  # noqa: F401
    from . import session  # noqa: F401

    _warm_up()
    settle_after_imports()  # the imports' objects out of the run's collections (gc_policy.py)
    conn.send(("ready", os.getpid()))
    try:
        msg = conn.recv()
    except (EOFError, OSError):
        os._exit(0)
    if msg[0] != "init":
        os._exit(0)
    _apply_os_limits(msg[1], slot)
    child = _Child(conn, controls, slot, msg[1], test_hooks)
    child.serve()
    os._exit(0)


_WARM_UP = """\
import torch
import torch.nn as nn
w = torch.ones(2, requires_grad=True)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    opt.zero_grad()
    loss = (model(w.unsqueeze(0)) * w.sum()).sum()
    loss.backward()
    opt.step()
print(loss.item())
"""


def _warm_up() -> None:
    """Pay a first run's one-time costs (lazy imports, caches) before any user waits on them."""
    try:
        from ..builder.workspace import describe
        from .session import Session

        s = Session(_WARM_UP)
        s.step_over()
        s.step_into()
        s.continue_()
        s.go_to(1)
        s.graph()
        describe(s.module_names(), s.source)
        s.continue_()
        s.graph()
    except Exception:
        pass


def _address_space_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return 0


def _apply_os_limits(config: dict, slot) -> None:
    """RLIMIT_AS and RLIMIT_CPU where the platform has them; else a memory watchdog."""
    from ..script import Limits

    limits = config.get("limits") or Limits()
    budget = int(getattr(limits, "max_total_bytes", Limits().max_total_bytes))
    headroom = int(config.get("headroom", HEADROOM_BYTES))
    try:
        import resource
    except ImportError:
        resource = None
    if resource is not None:
        start = _address_space_bytes()
        if start:
            _lower_limit(resource, resource.RLIMIT_AS, start + budget + headroom)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        _lower_limit(resource, resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime)
                     + int(config.get("cpu_seconds", CPU_SECONDS)))
        return
    _start_watchdog(budget + headroom, slot)


def _lower_limit(resource, which: int, want: int) -> None:
    """Set the soft limit ``which`` to ``want`` (never above the hard limit)."""
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(which, (want, hard))
    except (ValueError, OSError):
        pass


def _start_watchdog(max_bytes: int, slot) -> None:  # pragma: no cover - platforms without rlimit
    try:
        import psutil
    except ImportError:
        return
    me = psutil.Process()
    base = me.memory_info().rss

    def watch():
        while True:
            time.sleep(0.1)
            if me.memory_info().rss - base > max_bytes:
                _SLOT.pack_into(slot, 0, _SLOT.unpack_from(slot, 0)[0], 1)
                os._exit(137)

    threading.Thread(target=watch, name="gradstep-memory-watchdog", daemon=True).start()


def _worker_session_class():
    from .session import Session

    class WorkerSession(Session):
        """A ``Session`` that writes the line it runs into the page the window reads when the
        process dies."""

        _slot = None
        _tick = None  # the worker's flush check, at every statement

        def _pull(self):
            pause = super()._pull()
            if pause is not None and self._slot is not None:
                self._slot[0] = pause.stmt.lineno
                self._tick()
            return pause

    return WorkerSession


class _Child:
    """The worker's session and its two threads: main (reads and runs the commands) and control
    (reads stop, pause and the breakpoints from their own socket, applied at once)."""

    def __init__(self, conn: Connection, controls: Connection, slot, config: dict,
                 test_hooks: bool) -> None:
        self.conn = conn
        self.controls = controls
        self.slot = slot
        self.test_hooks = test_hooks
        self.send_lock = threading.Lock()
        self.applied = 0  # control messages applied (a command waits for those sent before it)
        self.applied_changed = threading.Condition()
        from .told import PanelsTeller

        cls = _worker_session_class()
        self.session = cls(
            config["source"], seed=config.get("seed", 0), limits=config.get("limits"),
            breakpoints=config.get("breakpoints", ()),
            filename=config.get("filename", "<script>"), resume=config.get("resume"),
            timeline_budget=config.get("timeline_budget", 64 * 2**20),
        )
        # The panels' recorder hears the engine here, next to the session; what the panels draw
        # crosses as plain data (PanelsData) just before each event at rest.
        self.panels = PanelsTeller(self.session)
        self.session._slot = memoryview(slot).cast("q")
        self.session._tick = self._tick
        if config.get("data_breakpoints") is not None:
            self.session.set_data_breakpoints(config["data_breakpoints"])
        self.session.subscribe(self._on_event)
        self.muted = False
        self.buffer: list = []
        self.current: int | None = None
        self.started = self.last_flush = 0.0
        self.pause_asked = self.stop_asked = False
        self.announce = True  # the running command sends its Running at once (not a step)
        self.replay_reason: str | None = None
        self.graph = None
        # what the window has of the lists it keeps, of the snapshots and of the workspace
        self.lists = {key: ListSender() for key in ("timeline", "console", "losses",
                                                     "warnings")}
        self.snapshots = SnapshotChain()
        self.sent_snapshot = None
        self.sent_workspace = _NOT_SENT

    # ------------------------------------------------------------------ threads
    def serve(self) -> None:
        threading.Thread(target=self._control, name="gradstep-control", daemon=True).start()
        while True:
            try:
                # read here, not handed over by another thread: one wake-up less per command
                msg = self.conn.recv()
            except (EOFError, OSError):
                os._exit(0)  # the window is gone: nothing here is worth keeping
            tag = msg[0]
            if tag == "exit":
                return
            try:
                if tag == "cmd":
                    self._wait_for_controls(msg[5])
                    self._command(*msg[1:5])
                elif tag == "query":
                    self._answer(*msg[1:])
                elif tag == "replay":
                    self._replay(*msg[1:])
            except BaseException as exc:  # the window must hear back whatever happened
                outcome = {"failed": f"{type(exc).__name__}: {exc}"}
                if isinstance(exc, MemoryError):
                    self.buffer = []
                    self._out_of_memory()
                    outcome = {"raw": self.session.raw_position, "timed": False}
                self._send(("done", msg[1], self._take(), self._state(), outcome))
                self.current = None

    def _wait_for_controls(self, sent: int) -> None:
        """A breakpoint set before a command is in force when it starts (the two sockets do not
        keep the order between them)."""
        if self.applied < sent:
            with self.applied_changed:
                self.applied_changed.wait_for(lambda: self.applied >= sent, timeout=5.0)

    def _control(self) -> None:
        while True:
            try:
                msg = self.controls.recv()
            except (EOFError, OSError):
                os._exit(0)  # the window is gone: nothing here is worth keeping
            try:
                self._apply_control(msg)
            finally:
                with self.applied_changed:
                    self.applied += 1
                    self.applied_changed.notify_all()

    def _apply_control(self, msg) -> None:
        session = self.session
        tag = msg[0]
        if tag == "stop":
            # Only the command running now: one that already ended is not stopped (the window
            # asks again at rest, as a command).
            self.stop_asked = True
            if session._busy:
                session._stop_requested.set()
                interp = session._interp
                if interp is not None:
                    interp.stop()
        elif tag == "pause":
            self.pause_asked = True
            session.pause()
        elif tag == "bp":
            session.set_breakpoint(msg[1], msg[2])
        elif tag == "clear_bp":
            session.clear_breakpoint(msg[1])
        elif tag == "data_bp":
            session.set_data_breakpoints(msg[1])

    def _send(self, msg) -> None:
        with self.send_lock:
            self.conn.send(msg)

    # ------------------------------------------------------------------ events
    def _on_event(self, event) -> None:
        self.panels.follow(event)  # also while a replay is muted: it re-runs the script
        if self.muted:
            return
        if isinstance(event, ev.Finished) and event.snapshot is None:
            event = replace(event, snapshot=self.session.snapshot())
        if isinstance(event, ev.Paused) and self.replay_reason is not None:
            event = replace(event, reason=self.replay_reason)
        if isinstance(event, ev.AT_REST):
            self.sent_snapshot = event.snapshot
            session = self.session
            self.buffer.append(self.panels.at_rest(event, session.visible_names(),
                                                   session.visible_tensors()))
        elif isinstance(event, ev.Reset):
            self._curves()
        self.buffer.append(self.snapshots.pack_event(to_wire(event, self.session.source)))
        self._tick()

    def _tick(self) -> None:
        """Send what the views have not heard yet (checked at every event and every
        statement): a step's events once it has run ``_FLUSH_SECONDS``, so a quick one's all go
        with its ``done``, one message; another command's ``Running`` at once; then the events
        of a long command at that pace."""
        now = time.perf_counter()
        if not self.buffer or self.muted:
            return
        if (self.announce and isinstance(self.buffer[-1], ev.Running)) or (
                now - self.started > _FLUSH_SECONDS and now - self.last_flush > _FLUSH_SECONDS):
            self.last_flush = now
            self._curves()
            self._send(("events", self.current, self._take()))

    def _curves(self) -> None:
        """The training curves' news while the script runs (nothing when there is none)."""
        data = self.panels.running()
        if data is not None:
            self.buffer.append(data)

    def _take(self) -> list:
        out, self.buffer = self.buffer, []
        return out

    # ------------------------------------------------------------------ commands
    def _command(self, ident: int, name: str, args: tuple, kwargs: dict) -> None:
        session = self.session
        self.current = ident
        self.started = self.last_flush = time.perf_counter()
        self.announce = name not in _STEPS
        outcome: dict = {}
        try:
            if name.startswith("_test_"):
                if not self.test_hooks:
                    raise AttributeError(f"no command {name!r}")
                getattr(self, name)(*args)
            else:
                if name.startswith("_") or not hasattr(session, name):
                    raise AttributeError(f"no command {name!r}")
                if kwargs.pop("progress", False):
                    kwargs["progress"] = lambda done, total: self._progress(ident, done, total)
                getattr(session, name)(*args, **kwargs)
        except MemoryError:
            self._out_of_memory()
        except Exception as exc:
            outcome["failed"] = f"{type(exc).__name__}: {exc}"
        last = session.timeline[-1] if len(session.timeline) else None
        timed = session.status == Status.STOPPED or (
            self.pause_asked and session.status == Status.PAUSED and last is not None
            and session.position is not None and session.position.point_index is not None
            and session.timeline[session.position.point_index].reason == "paused")
        outcome.update(raw=session.raw_position, timed=timed,
                       stopped=session.status == Status.STOPPED)
        if self.buffer and time.perf_counter() - self.started > _FLUSH_SECONDS:
            # a long command: the views hear where it stopped before the graph is built
            self._send(("events", ident, self._take()))
        state = self._state()
        self._send(("done", ident, self._take(), state, outcome))
        self.current = None
        self.pause_asked = self.stop_asked = False
        session._stop_requested.clear()

    def _progress(self, ident: int, done: int, total: int) -> None:
        self._curves()
        events = self._take()
        if events:
            self._send(("events", ident, events))
        self._send(("progress", ident, done, total))

    def _out_of_memory(self) -> None:
        from ..script.errors import ScriptError

        session = self.session
        line = self.session._slot[0] or None
        error = ScriptError("limit", "the script's process ran out of memory (its "
                            "address-space limit)" + (f" at line {line}" if line else ""), line)
        session._close_run()
        session.status = Status.FAILED
        session.error = error
        session.explanation = None
        session._send(ev.Error(error, None, _empty_diff(), None))

    def _replay(self, ident: int, history: list, announce: bool = True) -> None:
        """Re-execute ``history`` silently, then tell the views where it stands."""
        session = self.session
        self.current = ident
        self.started = self.last_flush = time.perf_counter()
        self.muted = True
        try:
            for entry in history:
                tag = entry[0]
                if tag == "cmd":
                    getattr(session, entry[1])(*entry[2], **entry[3])
                elif tag == "bp":
                    session.set_breakpoint(entry[1], entry[2])
                elif tag == "clear_bp":
                    session.clear_breakpoint(entry[1])
                elif tag == "bps":
                    session.breakpoints.clear()
                    for line, condition in entry[1].items():
                        session.set_breakpoint(line, condition)
                elif tag == "data_bp":
                    session.set_data_breakpoints(entry[1])
        finally:
            self.muted = False
        if announce and session.status in (Status.PAUSED, Status.FINISHED, Status.FAILED) \
                and len(session.timeline):
            here = session.position.point_index if session.status == Status.PAUSED else None
            index = here if here is not None else len(session.timeline) - 1
            self.replay_reason = announce if isinstance(announce, str) else "stopped"
            try:
                session.go_to(index)
            finally:
                self.replay_reason = None
        self._send(("done", ident, self._take(), self._state(),
                    {"raw": session.raw_position, "timed": False, "stopped": False}))
        self.current = None

    def _answer(self, ident: int, what: str, args: tuple) -> None:
        session = self.session
        if what == "snapshot":
            value = session.snapshot(*args)
        elif what == "console_at":
            value = session.console_at(*args)
        elif what == "pid":
            value = os.getpid()
        else:
            value = None
        self._send(("answer", ident, value))

    def _state(self) -> dict:
        """What the window keeps of the session after a command: what changed only (the lists
        as deltas, the workspace when it differs, the snapshot when no event carried it)."""
        s = self.session
        try:
            graph = s.graph(self.graph)
        except Exception:
            graph = None
        sent = graph
        if graph is not None and self.graph is not None and same_graph(graph, self.graph):
            sent = GraphUnchanged(dict(graph.graph))  # the window has it: 3 MB at 10,000 nodes
        self.graph = graph
        lists = self.lists
        state = {
            "status": str(s.status), "position": s.position, "counters": replace(s.counters),
            "timeline": lists["timeline"].delta(s.timeline._points),
            "console": lists["console"].delta(s.console),
            "losses": lists["losses"].delta(s.losses),
            "warnings": lists["warnings"].delta(s.linter.warnings),
            "error": error_info(s.error), "explanation": s.explanation, "graph": sent,
            "pause": pause_info(s.pause_state, s.source),
            "hits": {line: bp.hits for line, bp in s.breakpoints.items()},
            "raw": s.raw_position,
        }
        workspace = _workspace(s)
        if workspace != self.sent_workspace:
            state["workspace"] = self.sent_workspace = workspace
        snapshot = s.snapshot()
        if snapshot is not self.sent_snapshot:
            state["snapshot"] = self.snapshots.pack(snapshot)
            self.sent_snapshot = snapshot
        return state

    # ------------------------------------------------------------------ test-only commands
    def _test_segv(self) -> None:
        os.kill(os.getpid(), signal.SIGSEGV)

    def _test_hang(self) -> None:
        import re

        # catastrophic backtracking: one C call that holds the GIL and never returns
        re.fullmatch(r"(a|aa)+b", "a" * 64)

    def _test_alloc(self, nbytes: int) -> None:
        block = bytearray(int(nbytes))
        block[-1] = 1

    def _test_line(self, line: int) -> None:
        self.session._slot[0] = int(line)


def _empty_diff():
    from .diff import StateDiff

    return StateDiff()


def _workspace(session):
    """The builder's workspace of the session's module names (None if they cannot be read)."""
    try:
        from ..builder.workspace import describe

        return describe(session.module_names(), session.source)
    except Exception:
        return None


_NOT_SENT = object()


# ==================================================================================== window side
def _repo_root() -> str:
    return str(Path(__file__).resolve().parents[2])


_CHILD_CODE = ("import sys; from engine.session.worker import _child_main; "
               "_child_main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), "
               "sys.argv[4] == '1')")
# what goes to the worker's control thread, on its own socket: applied at once, also while a
# command runs (everything else is read by the worker's main thread, in order)
_CONTROLS = frozenset(("stop", "pause", "bp", "clear_bp", "data_bp"))


class _Process:
    """One worker process: its two sockets (commands and what it sends back; controls) and the
    page it writes its line into."""

    def __init__(self, test_hooks: bool = False) -> None:
        import socket

        self.test_hooks = test_hooks
        self.deliberate = False  # killed by stop(): not a crash
        self.ready = False  # its "ready" message was read (wait_ready)
        ours, theirs = socket.socketpair()
        control_ours, control_theirs = socket.socketpair()
        self.controls_sent = 0  # a command waits in the worker until that many were applied
        self._slot_file = tempfile.TemporaryFile()
        self._slot_file.truncate(_SLOT.size)
        self._slot_file.flush()
        env = dict(os.environ)
        root = _repo_root()
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
        env.pop("QT_QPA_PLATFORM", None)
        fds = (theirs.fileno(), control_theirs.fileno(), self._slot_file.fileno())
        self.popen = subprocess.Popen(
            [sys.executable, "-c", _CHILD_CODE, *map(str, fds), "1" if test_hooks else "0"],
            pass_fds=fds, env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        control_theirs.close()
        self.conn = Connection(ours.detach())
        self.controls = Connection(control_ours.detach())
        self.slot = mmap.mmap(self._slot_file.fileno(), _SLOT.size)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def wait_ready(self, timeout: float) -> bool:
        """Wait for the worker's imports to be done (its ``ready`` message, read here)."""
        if self.ready:
            return True
        try:
            if self.conn.poll(timeout):
                msg = self.conn.recv()
                self.ready = msg[0] == "ready"
        except (EOFError, OSError):
            return False
        return self.ready

    def line(self) -> int | None:
        try:
            return _SLOT.unpack_from(self.slot, 0)[0] or None
        except (ValueError, OSError):
            return None

    def watchdog_fired(self) -> bool:
        try:
            return _SLOT.unpack_from(self.slot, 0)[1] == 1
        except (ValueError, OSError):
            return False

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        if self.popen.poll() is None:
            try:
                self.popen.kill()
            except OSError:
                pass

    def close(self) -> None:
        """Ask it to exit; kill it if it does not at once. Reaps the process."""
        if self.popen.poll() is None:
            try:
                self.conn.send(("exit",))
            except (OSError, ValueError):
                pass
            try:
                self.popen.wait(0.5)
            except subprocess.TimeoutExpired:
                self.kill()
                self.popen.wait(5)
        for conn in (self.conn, self.controls):
            try:
                conn.close()
            except OSError:
                pass
        try:
            self.slot.close()
            self._slot_file.close()
        except (OSError, ValueError, BufferError):
            pass


class _Spares:
    """One warm worker kept ready (imports done), so a new session or a respawn after a kill
    does not wait for Python and numpy to start.

    The spare that replaces a taken one starts ``AFTER_REST_SECONDS`` after the taken worker
    first comes to rest (``refill_after_rest``), once the window has drawn what it sent, or
    ``REFILL_SECONDS`` after the take at the latest: its start-up (imports, a warm-up run, about
    a second of CPU) competing with the script just handed over, and then with the window
    drawing its result, made opening the 10,000-node graph 1.3-1.8 s instead of 1.0-1.3 s on
    two cores."""

    REFILL_SECONDS = 2.0
    AFTER_REST_SECONDS = 0.5

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spares: dict[bool, _Process] = {}
        self._wanted: dict[bool, threading.Timer] = {}  # refills not started yet
        self._after_rest: set = set()  # those of _wanted already moved by refill_after_rest
        self.enabled = os.environ.get("GRADSTEP_WORKER_SPARE", "1") != "0"

    def take(self, test_hooks: bool) -> _Process:
        with self._lock:
            proc = self._spares.pop(test_hooks, None)
            if proc is not None and not proc.alive():
                proc.close()
                proc = None
            if proc is None:
                proc = _Process(test_hooks)
            if self.enabled and test_hooks not in self._wanted:
                timer = threading.Timer(self.REFILL_SECONDS, self.refill, args=(test_hooks,))
                timer.daemon = True
                self._wanted[test_hooks] = timer
                timer.start()
        return proc

    def refill_after_rest(self, test_hooks: bool) -> None:
        """The taken worker of this kind came to rest: its spare starts ``AFTER_REST_SECONDS``
        from now instead of at the take's ``REFILL_SECONDS`` (once per take)."""
        with self._lock:
            timer = self._wanted.get(test_hooks)
            if timer is None or timer in self._after_rest:
                return
            timer.cancel()
            timer = threading.Timer(self.AFTER_REST_SECONDS, self.refill, args=(test_hooks,))
            timer.daemon = True
            self._wanted[test_hooks] = timer
            self._after_rest.add(timer)
            timer.start()

    def refill(self, test_hooks: bool | None = None) -> None:
        """Start the spares taken since the last refill (``test_hooks``: that kind only)."""
        with self._lock:
            kinds = [k for k in self._wanted if test_hooks is None or k == test_hooks]
            for kind in kinds:
                timer = self._wanted.pop(kind)
                timer.cancel()
                self._after_rest.discard(timer)
                if kind not in self._spares:
                    self._spares[kind] = _Process(kind)

    def wait_ready(self, timeout: float = 30.0, *, start: bool = False) -> bool:
        """Start any spare still to come (``start``: and one if there is none yet, as after the
        window's first session), and wait until every spare has started (benchmarks and tests
        of timing call it)."""
        self.refill()
        if start and self.enabled:
            with self._lock:
                if False not in self._spares:
                    self._spares[False] = _Process(False)
        with self._lock:
            spares = list(self._spares.values())
        return all(proc.wait_ready(timeout) for proc in spares)

    def shutdown(self) -> None:
        with self._lock:
            for timer in self._wanted.values():
                timer.cancel()
            self._wanted = {}
            self._after_rest = set()
            spares, self._spares = list(self._spares.values()), {}
        for proc in spares:
            proc.close()


SPARES = _Spares()


def shutdown_spares() -> None:
    """End the warm spare workers (tests call it in teardown; also at exit)."""
    SPARES.shutdown()


import atexit  # noqa: E402

atexit.register(shutdown_spares)


def _received(conn: Connection):
    """The next message, unpickled with the cyclic collector paused: a large graph model is
    ~100,000 new objects (without cycles), and the collections their allocation would start
    walk the window's whole heap (a 10,000-node reply took 160 ms to load instead of 80)."""
    data = conn.recv_bytes()  # waits with the collector on: the reader thread mostly waits
    with collector_paused():
        return ForkingPickler.loads(data)


class RemoteTimeline(list):
    """The timeline's points as the worker last sent them; ``snapshot(i)`` as the session's."""

    def __init__(self, points=(), owner=None) -> None:
        super().__init__(points)
        self._owner = owner

    def snapshot(self, index: int):
        return self._owner.snapshot(index) if self._owner is not None else None

    def console_lines(self, index: int) -> int:
        snap = self.snapshot(index)
        return snap.console_lines if snap is not None else 0


class RemoteSession(EventPublisher):
    """A ``DebugSession`` whose script runs in a worker process.

    Same parameters as ``Session`` (plus ``grace``: seconds between the polite stop and the kill;
    ``headroom`` / ``cpu_seconds``: the worker's OS limits; ``test_hooks``: accept the
    ``_test_*`` commands). Commands block the calling thread (the controller's, never the GUI's)
    until the worker comes to rest; ``stop()``, ``pause()`` and the breakpoint setters return at
    once from any thread.
    """

    can_edit = True
    is_recorded = False
    runs_in_worker = True

    def __init__(self, source: str, *, seed: int = 0, limits=None, breakpoints=(),
                 on_event=None, filename: str = "<script>", timeline_budget: int = 64 * 2**20,
                 resume=None, grace: float = GRACE_SECONDS, headroom: int = HEADROOM_BYTES,
                 cpu_seconds: int = CPU_SECONDS, test_hooks: bool | None = None) -> None:
        from ..files.format import DataBreakpoints
        from .breakpoints import as_line_breakpoints
        from .counters import Counters

        self.source = source
        self.seed = seed
        self.limits = limits
        self.filename = filename
        self.resume = resume
        self.grace = grace
        self._subscribers: list = []
        if on_event is not None:
            self.subscribe(on_event)
        self.breakpoints: dict = {bp.line: bp for bp in as_line_breakpoints(breakpoints)}
        self.data_breakpoints = DataBreakpoints()
        self.status = Status.IDLE
        self.timeline = RemoteTimeline((), self)
        self.counters = Counters()
        self.losses: list = []
        self.console: list = []
        self._warnings: list = []
        self.error = None
        self.explanation = None
        self.namespace = None  # the names live in the worker
        self.workspace = None
        self._position = None
        self._pause = None
        self._graph = None
        self._snapshot = None
        self._snapshots: dict = {}  # (raw_index, kind) -> Snapshot, from the events
        self._chain = SnapshotChain()  # the snapshots arrive as deltas against the one before
        from .panels_model import PanelsRecorder

        # What the panels draw, as the worker's recorder told it (never attached to this
        # process's engine: nothing runs here)
        self.panels = PanelsRecorder()
        # the _test_* commands (segfault, hang, allocate): tests only
        self._test_hooks = (os.environ.get("GRADSTEP_WORKER_TEST_HOOKS") == "1"
                            if test_hooks is None else bool(test_hooks))
        self._config = {
            "source": source, "seed": seed, "limits": limits, "filename": filename,
            "resume": resume, "timeline_budget": timeline_budget, "headroom": headroom,
            "cpu_seconds": cpu_seconds,
            "breakpoints": tuple((bp.line, bp.condition) for bp in self.breakpoints.values()),
        }
        self._history: list = []
        self._ids = itertools.count(1)
        self._waiters: dict[int, queue.SimpleQueue] = {}
        self._send_lock = threading.Lock()
        self._cmd_lock = threading.RLock()
        self._busy = False
        self._current: int | None = None
        self._kill_timer: threading.Timer | None = None
        # the command whose run has ended at a statement (its rest event came ahead of its
        # reply): what the worker still does for it (the graph, the snapshot) runs no script
        # code, so Stop has nothing left to kill
        self._rested: int | None = None
        self._closed = False
        self._proc: _Process | None = None
        self._dead = False  # the worker died: the next command starts a fresh one
        self._spawn()

    # ------------------------------------------------------------------ processes
    def _spawn(self) -> None:
        proc = SPARES.take(self._test_hooks)
        self._proc = proc
        self._dead = False
        config = dict(self._config, data_breakpoints=self.data_breakpoints)
        with self._send_lock:
            proc.conn.send(("init", config))
        threading.Thread(target=self._read, args=(proc,), name="gradstep-worker-reader",
                         daemon=True).start()

    def _read(self, proc: _Process) -> None:
        while True:
            try:
                msg = _received(proc.conn)
            except (EOFError, OSError, ValueError):
                break
            except Exception:  # a message that cannot be read: treat the worker as lost
                proc.kill()
                break
            if msg[0] == "ready":
                continue
            waiter = self._waiters.get(msg[1])
            if waiter is not None:
                waiter.put(msg)
        try:
            code = proc.popen.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.popen.wait()
        if proc is not self._proc or self._closed:
            return
        self._dead = True
        for waiter in list(self._waiters.values()):
            waiter.put(("died", code))
        if self._current is None and not proc.deliberate:
            # died while at rest (killed from outside, the memory watchdog, ...)
            self._crashed(proc, code)

    def _crashed(self, proc: _Process, code) -> None:
        from ..script.errors import ScriptError

        line = proc.line()
        message = death_message(code, line, proc.watchdog_fired())
        error = ScriptError("runtime", message[0].upper() + message[1:] + ".", line)
        self.status = Status.FAILED
        self.error = error
        self.explanation = None
        self._send(ev.Error(error, None, _empty_diff(), None))

    def _respawn(self) -> None:
        old = self._proc
        if old is not None:
            old.deliberate = True
            old.kill()
        self._spawn()
        if old is not None:
            threading.Thread(target=old.close, daemon=True).start()

    def close(self) -> None:
        """End the worker (the session is no longer shown)."""
        if self._closed:
            return
        self._closed = True
        proc = self._proc
        if proc is not None:
            proc.deliberate = True
            proc.close()
        for waiter in list(self._waiters.values()):
            waiter.put(("died", None))

    @property
    def worker_pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def worker_alive(self) -> bool:
        return self._proc is not None and self._proc.alive()

    def running_line(self) -> int | None:
        """The line the worker is running now (its shared page), None at rest: what Stop says
        when it has to end the worker inside one long call."""
        proc = self._proc
        return proc.line() if self._busy and proc is not None else None

    # ------------------------------------------------------------------ messages
    def _post(self, msg) -> bool:
        proc = self._proc
        if proc is None or self._closed:
            return False
        try:
            with self._send_lock:
                if msg[0] in _CONTROLS:
                    proc.controls.send(msg)
                    proc.controls_sent += 1
                else:
                    if msg[0] == "cmd":  # the controls sent before it apply to it
                        msg = (*msg, proc.controls_sent)
                    proc.conn.send(msg)
            return True
        except (OSError, ValueError):
            return False

    def _exchange(self, msg_for, on_progress=None, rollback=None):
        """Send a main-thread message and process the replies until its ``done``."""
        ident = next(self._ids)
        waiter: queue.SimpleQueue = queue.SimpleQueue()
        self._waiters[ident] = waiter
        self._current = ident
        try:
            if not self._post(msg_for(ident)):
                return ("died", None)
            while True:
                msg = waiter.get()
                tag = msg[0]
                if tag == "events":
                    self._dispatch(msg[2])
                elif tag == "progress":
                    if on_progress is not None:
                        on_progress(msg[2], msg[3])
                elif tag == "done":
                    self._dispatch(msg[2])
                    self._apply(msg[3])
                    return msg
                elif tag == "died":
                    return msg
        finally:
            self._waiters.pop(ident, None)
            self._current = None

    def _dispatch(self, events: list) -> None:
        for wired in events:
            if isinstance(wired, PanelsData):  # before the event it belongs to
                self._show_panels(wired)
                continue
            event = self._chain.unpack_event(from_wire(wired))
            if isinstance(event, ev.AT_REST):
                self._rested = self._current
            match event:
                case ev.Paused(point=point, snapshot=snap) | ev.Finished(
                        point=point, snapshot=snap) | ev.Error(point=point, snapshot=snap):
                    if snap is not None:
                        self._snapshot = snap
                        if point is not None:
                            self._snapshots[(point.raw_index, point.kind)] = snap
                case ev.Reset():
                    self._snapshots.clear()
            self._send(event)

    def _show_panels(self, data: PanelsData) -> None:
        panels = self.panels
        history = None
        if data.history is not None:
            with panels.lock:  # extended in place: the training panel reads it under the lock
                history = history_from(data.history, panels.history)
        panels.show_told(data.feed(panels.replay), history,
                         data.predictions if data.at_rest else None)

    def _apply(self, state: dict) -> None:
        self.status = Status(state["status"])
        self._position = state["position"]
        self.counters = state["counters"]
        self.timeline = RemoteTimeline(ListSender.apply(self.timeline, state["timeline"]), self)
        self.console = ListSender.apply(self.console, state["console"])
        self.losses = ListSender.apply(self.losses, state["losses"])
        self._warnings = ListSender.apply(self._warnings, state["warnings"])
        self.error = script_error(state["error"])
        self.explanation = state["explanation"]
        graph = state["graph"]
        if isinstance(graph, GraphUnchanged):  # (the worker sent a graph before this one)
            graph = graph.applied_to(self._graph)
        self._graph = graph
        if "workspace" in state:
            self.workspace = state["workspace"]
        self._pause = state["pause"]
        if "snapshot" in state:
            self._snapshot = self._chain.unpack(state["snapshot"])
        for line, hits in state["hits"].items():
            bp = self.breakpoints.get(line)
            if bp is not None:
                bp.hits = hits

    # ------------------------------------------------------------------ commands
    def _run(self, name: str, *args, progress=None, **kwargs):
        with self._cmd_lock:
            if self._closed:
                return None
            if self._dead:
                self._recover(announce=False)
            if progress is not None:
                kwargs["progress"] = True
            self._busy = True
            try:
                msg = self._exchange(lambda i: ("cmd", i, name, args, kwargs), progress)
            finally:
                self._busy = False
                timer, self._kill_timer = self._kill_timer, None
                if timer is not None:
                    timer.cancel()
            if msg[0] == "done":
                SPARES.refill_after_rest(self._test_hooks)  # once the window has drawn it
                self._record(name, args, kwargs, msg[4])
                failed = msg[4].get("failed")
                if failed:
                    raise RuntimeError(f"the worker refused {name}: {failed}")
            elif not self._closed:
                proc = self._proc
                if proc is not None and proc.deliberate:
                    self._recover(announce="stopped")  # Stop killed it: back where the user was
                elif proc is not None:
                    self._crashed(proc, msg[1])
            return self.pause_state

    def _record(self, name: str, args: tuple, kwargs: dict, outcome: dict) -> None:
        if name.startswith("_test_"):
            return
        kwargs = {k: v for k, v in kwargs.items() if k != "progress"}
        if name == "restart":
            self._history = [("bps", {b.line: b.condition for b in self.breakpoints.values()}),
                             ("data_bp", self.data_breakpoints)]
        if outcome.get("timed"):
            passing = name in ("continue_", "run_to_end")
            self._history.append(("cmd", "run_to_pause", (outcome["raw"],),
                                  {"passing": passing}))
            if outcome.get("stopped"):
                self._history.append(("cmd", "stop", (), {}))
        else:
            self._history.append(("cmd", name, tuple(args), kwargs))

    def _recover(self, announce) -> None:
        """A fresh worker, re-executed to the last point the user saw."""
        self._respawn()
        history = list(self._history)
        msg = self._exchange(lambda i: ("replay", i, history, announce))
        if msg[0] != "done" and not self._closed:
            self._crashed(self._proc, msg[1])

    def continue_(self):
        return self._run("continue_")

    def run_to_end(self):
        return self._run("run_to_end")

    def step_over(self):
        return self._run("step_over")

    def step_into(self):
        return self._run("step_into")

    def step_out(self):
        return self._run("step_out")

    def run_to_line(self, line: int):
        return self._run("run_to_line", int(line))

    def next_iteration(self):
        return self._run("next_iteration")

    def run_iterations(self, n: int, progress=None):
        return self._run("run_iterations", int(n), progress=progress)

    def restart(self):
        return self._run("restart")

    def go_to(self, point_index: int):
        return self._run("go_to", int(point_index))

    def run_to_pause(self, raw_index: int, *, passing: bool = False, reason: str = "paused"):
        return self._run("run_to_pause", int(raw_index), passing=passing, reason=reason)

    def __getattr__(self, name: str):
        if name.startswith("_test_"):
            return lambda *args: self._run(name, *args)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ thread-safe controls
    def pause(self) -> None:
        if self._busy:
            self._post(("pause",))

    def stop(self) -> None:
        """Ask the worker to end the run; kill it ``grace`` seconds later if it has not (a
        fresh worker then re-executes to the last point shown). Returns at once while a command
        runs; at rest it ends the paused run (a short exchange)."""
        if self._busy:
            ident = self._current
            self._post(("stop",))
            if self._kill_timer is None and self._rested != ident:
                timer = threading.Timer(self.grace, self._kill_if_still, args=(ident,))
                timer.daemon = True
                self._kill_timer = timer
                timer.start()
            return
        if self.status == Status.PAUSED and self._cmd_lock.acquire(blocking=False):
            try:
                self._run("stop")
            finally:
                self._cmd_lock.release()

    def _kill_if_still(self, ident) -> None:
        proc = self._proc
        if ident is not None and self._current == ident and self._rested != ident \
                and proc is not None:
            proc.deliberate = True
            proc.kill()

    # ------------------------------------------------------------------ breakpoints
    def set_breakpoint(self, line: int, condition: str | None = None):
        from .breakpoints import LineBreakpoint, compile_condition

        if condition:
            compile_condition(condition)
        bp = LineBreakpoint(int(line), condition or None)
        self.breakpoints[bp.line] = bp
        self._history.append(("bp", bp.line, bp.condition))
        self._post(("bp", bp.line, bp.condition))
        return bp

    def clear_breakpoint(self, line: int) -> None:
        self.breakpoints.pop(int(line), None)
        self._history.append(("clear_bp", int(line)))
        self._post(("clear_bp", int(line)))

    def set_data_breakpoints(self, spec) -> None:
        self.data_breakpoints = replace(spec)
        self._history.append(("data_bp", replace(spec)))
        self._post(("data_bp", replace(spec)))

    def _switch(self, **change) -> None:
        self.set_data_breakpoints(replace(self.data_breakpoints, **change))

    def break_on_nan(self, enabled: bool = True) -> None:
        self._switch(nan=bool(enabled))

    def break_on_grad_norm(self, threshold) -> None:
        self._switch(grad_norm=None if threshold is None else float(threshold))

    def break_on_backward(self, enabled: bool = True) -> None:
        self._switch(on_backward=bool(enabled))

    def break_on_zero_grad(self, enabled: bool = True) -> None:
        self._switch(on_zero_grad=bool(enabled))

    def break_on_step(self, enabled: bool = True) -> None:
        self._switch(on_step=bool(enabled))

    # ------------------------------------------------------------------ reading the state
    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def position(self):
        return self._position

    @property
    def pause_state(self):
        return self._pause if self.status == Status.PAUSED else None

    @property
    def warnings(self) -> list:
        return list(self._warnings)

    @property
    def last_backward_steps(self) -> tuple:
        return ()

    def graph(self, previous=None):
        """The graph model the worker built after its last command (against its previous one,
        so ``graph.graph["changed"]`` lists what differs)."""
        if self._graph is None:
            from ..graph import build_graph

            return build_graph({}, (), previous=previous)
        return self._graph

    def snapshot(self, point_index: int | None = None):
        """The ``Snapshot`` at a point (the current one by default): from the events when they
        carried it, else asked of the worker when it is at rest (None while a command runs)."""
        if point_index is None:
            return self._snapshot
        point = self.timeline[point_index]
        snap = self._snapshots.get((point.raw_index, point.kind))
        if snap is not None:
            return snap
        return self._query("snapshot", point_index)

    def console_at(self, point_index: int) -> list[str]:
        snap = self.snapshot(point_index)
        if snap is None:
            return list(self.console)
        return self.console[: snap.console_lines]

    def visible_names(self) -> dict:
        return {}  # the live names are the worker's; the views draw the snapshot

    def module_names(self) -> dict:
        return {}

    def _query(self, what: str, *args, timeout: float = 5.0):
        if self._busy or self._dead or self._closed or not self._cmd_lock.acquire(
                blocking=False):
            return None
        try:
            ident = next(self._ids)
            waiter: queue.SimpleQueue = queue.SimpleQueue()
            self._waiters[ident] = waiter
            try:
                if not self._post(("query", ident, what, args)):
                    return None
                try:
                    msg = waiter.get(timeout=timeout)
                except queue.Empty:
                    return None
                return msg[2] if msg[0] == "answer" else None
            finally:
                self._waiters.pop(ident, None)
        finally:
            self._cmd_lock.release()
