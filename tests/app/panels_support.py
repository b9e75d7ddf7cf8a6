"""A stand-in for the window's controller: synchronous, on the GUI thread, deterministic.

test_panels_session.py runs the panels on the real controller and session; this stand-in keeps
the finer-grained tests (one pause per top-level statement, the controller's calls recorded)
simple and fast.

Only the controller (and the session's bookkeeping) is stood in for; the engine math is real: a
script's top-level statements run one at a time through ``exec`` on the real engine, each pause
is published as a real ``Paused`` event carrying a real ``Snapshot`` (``state.capture``), a real
``TimelinePoint`` and ``Position``, and time travel re-runs the script from the start with the same
seed, as the session does.
"""

from __future__ import annotations

import ast
from types import SimpleNamespace

from PySide6.QtCore import QObject, Signal

import engine
from app.controller import SessionSnapshot
from engine import events as engine_events
from engine.session.counters import Counters
from engine.session.events import Paused, Position, Status
from engine.session.state import capture
from engine.session.timeline import Timeline, TimelinePoint


class ScriptedSession:
    """Runs a script statement by statement on the real engine; keeps a real ``Timeline``."""

    def __init__(self, source: str, seed: int = 0) -> None:
        # the interpreter maps ``torch`` to the engine; exec needs it spelled out
        source = source.replace("import torch.nn as nn", "import engine.nn as nn")
        source = source.replace("import torch\n", "import engine as torch\n")
        self.source = source
        self.seed = seed
        self.statements = ast.parse(source).body
        self.timeline = Timeline()
        self.counters = Counters()
        self._subscribers = []
        self._start()

    def subscribe(self, fn):
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn)

    def _emit(self, event):
        for fn in tuple(self._subscribers):
            fn(event)
        return event

    def _start(self) -> None:
        engine.manual_seed(self.seed)
        self.namespace = {"__name__": "__main__"}
        self.next_statement = 0
        self.counters.backward = self.counters.zero_grad = self.counters.step = 0

    def snapshot(self, index=None):
        return self.timeline.snapshot(len(self.timeline) - 1 if index is None else index)

    def _run_one(self) -> frozenset:
        """Run the next statement; returns the markers of what it did."""
        seen = set()

        def listen(event):
            if event.kind == engine_events.BACKWARD_STARTED:
                seen.add("backward")
                self.counters.backward += 1
            elif event.kind == engine_events.GRAD_ZEROED:
                seen.add("zero_grad")
            elif event.kind == engine_events.PARAM_UPDATED:
                seen.add("step")

        stmt = self.statements[self.next_statement]
        unsubscribe = engine_events.hub.subscribe(listen)
        try:
            code = compile(ast.Module([stmt], []), "<script>", "exec")
            exec(code, self.namespace)
        finally:
            unsubscribe()
        self.next_statement += 1
        self.counters.zero_grad += "zero_grad" in seen
        self.counters.step += "step" in seen
        return frozenset(seen)

    def _pause(self, markers, travelled=False, index=None):
        line = (self.statements[self.next_statement].lineno
                if self.next_statement < len(self.statements) else None)
        snap = capture(self.namespace, None)
        if index is None:
            point = TimelinePoint(len(self.timeline), "statement", line, markers=markers,
                                  raw_index=self.next_statement)
            self.timeline.append(point, snap)
        else:
            point = self.timeline[index]
            snap = self.timeline.snapshot(index)
        position = Position(line, point_index=point.index)
        pause = SimpleNamespace(globals=self.namespace, locals=None, line=line)
        return self._emit(Paused(pause, None, position, point, "step", snap,
                                 travelled=travelled))

    def start(self):
        return self._pause(frozenset())

    def step_over(self):
        return self._pause(self._run_one())

    def go_to(self, index: int):
        point = self.timeline[index]
        self._start()
        while self.next_statement < point.raw_index:
            self._run_one()
        return self._pause(point.markers, travelled=True, index=index)


class FakeController(QObject):
    """The controller's signals and commands, run synchronously on the GUI thread."""

    state_changed = Signal(object)
    events_arrived = Signal(list)
    session_replaced = Signal(object)
    busy_changed = Signal(bool)

    def __init__(self, source: str) -> None:
        super().__init__()
        self.selected: list[str] = []
        self.travels: list[int] = []
        self._session = ScriptedSession(source)
        self.snapshot = SessionSnapshot(session=self._session, status=Status.IDLE)

    @property
    def session(self):
        return self._session

    def select_tensor(self, name: str) -> None:
        self.selected.append(name)

    def _publish(self, event) -> None:
        snap = self.snapshot
        snap.status, snap.pause, snap.position = Status.PAUSED, event, event.position
        snap.timeline = list(self._session.timeline)
        snap.counters = self._session.counters
        snap.version += 1
        self.events_arrived.emit([event])
        self.state_changed.emit(snap)

    def start(self) -> None:
        self._publish(self._session.start())

    def step_over(self, count: int = 1) -> None:
        for _ in range(count):
            self._publish(self._session.step_over())

    def go_to(self, index: int) -> None:
        self.travels.append(index)
        self._publish(self._session.go_to(index))


def behind_a_tab(qtbot, panel):
    """``panel`` in a dock tab behind an "Inspector" tab, as the window has its panels: returns
    (its dock, the window). Keep the window for as long as the panel is used."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

    window = QMainWindow()
    qtbot.addWidget(window)
    window.setCentralWidget(QLabel("graph"))
    docks = []
    for title, widget in (("Inspector", QLabel("inspector")), ("Panel", panel)):
        dock = QDockWidget(title, window)
        dock.setWidget(widget)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        docks.append(dock)
    window.tabifyDockWidget(*docks)
    docks[0].raise_()
    window.resize(900, 600)
    window.show()
    qtbot.waitExposed(window)
    return docks[1], window
