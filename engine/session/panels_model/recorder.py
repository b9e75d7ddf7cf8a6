"""``PanelsRecorder``: the one listener to the engine's events that the panels' models need."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from ... import events
from .. import events as session_events
from .buffers import BufferLedger
from .optimizer import StepLog
from .replay import ReplayFeed
from .training import TrainingHistory


class PanelsRecorder:
    """Listens to the engine's events and keeps what the panels need; attach once per session.

    Events arrive on the thread that runs the script; the panels read on the GUI thread, so both
    sides hold ``lock``. ``backward_count`` (optional) returns how many backward() calls the
    current run has made (the session's ``counters.backward``): when it falls behind the
    recorder's count, the script was re-run from the start (a restart or time travel backwards)
    and the recorder starts over with it.
    """

    def __init__(self, backward_count: Callable[[], int] | None = None) -> None:
        self.lock = threading.Lock()
        self.backward_count = backward_count
        self.ledger = BufferLedger()
        self.steps = StepLog()
        self.history = TrainingHistory()
        self.replay: ReplayFeed | None = None  # a replay's panels data, at the point shown
        self.version = 0  # grows with every event heard and every reset: "anything new?"
        # the predict panel's questions at the point shown, when someone else asked them (the
        # script's worker process); None: ask them of the live names
        self.predictions: tuple | None = None
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def attached(self) -> bool:
        return self._unsubscribe is not None

    def attach(self, hub: events.EventHub = events.hub) -> "PanelsRecorder":
        if self._unsubscribe is None:
            self._unsubscribe = hub.subscribe(self.handle)
        return self

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def reset(self) -> None:
        """Forget everything: the script starts over."""
        with self.lock:
            self._reset()

    def _reset(self) -> None:
        self.version += 1
        self.ledger = BufferLedger()
        self.steps = StepLog()
        self.history = TrainingHistory()
        self.replay = None

    def show_replay(self, feed: ReplayFeed | None) -> None:
        """Tell the panels a replay's story at the point it shows (None: back to the engine's).

        A recording has no engine events: its session makes the ``ReplayFeed`` (buffer stories,
        optimizer steps, training history) from the file, and the panels' models read it in
        place of what the events would have left.
        """
        with self.lock:
            self._reset()
            self.replay = feed
            if feed is not None:
                self.history = feed.history

    def show_told(self, feed: ReplayFeed | None = None, history: TrainingHistory | None = None,
                  predictions: tuple | None = None) -> None:
        """What the script's worker process told (``engine.session.told`` there): the story at
        the point it came to rest (``feed``), the predict panel's questions there and the
        training curves so far (``history``, also while it runs). None leaves that part as it
        was."""
        with self.lock:
            if history is not None:
                self.history = history
            if feed is not None:
                self.replay = feed
            if self.replay is not None:
                self.replay = replace(self.replay, history=self.history)
            if predictions is not None:
                self.predictions = predictions

    def follow(self, event) -> None:
        """Keep up with the session (its events, on the thread that runs the script): start
        over with a new run, and after time travel back before a backward() call."""
        match event:
            case session_events.Reset():
                self.reset()
            case session_events.Paused(travelled=True) | session_events.Finished(
                    travelled=True) | session_events.Error(travelled=True):
                # travelled back before any backward(): the re-run has not told the recorder yet
                self.catch_up()

    def catch_up(self) -> None:
        """Start over if the run has made fewer backward() calls than recorded: it was re-run."""
        with self.lock:
            self._catch_up()

    def _catch_up(self) -> None:
        if self.backward_count is not None and self.backward_count() < self.ledger.calls:
            self._reset()

    def handle(self, event: events.Event) -> None:
        if event.kind == events.OP_RECORDED:
            return  # the busiest event, and none of the panels' business
        with self.lock:
            self.version += 1
            if event.kind == events.BACKWARD_STARTED:
                self._catch_up()
            self.ledger.handle(event)
            self.steps.handle(event)
            self.history.handle(event)
