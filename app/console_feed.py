"""The console feed: what the session's events put in the console (and the editor's error marks).

``ConsoleFeed`` listens to ``SessionController.events_arrived`` and turns each batch into
``ConsoleEntry`` rows: the script's output, lint warnings, an error with its explanation and
usual fixes (also marked in the editor, and the console raised), "Script finished." / "Stopped at
line 7 (iteration 12)." (said once the run is at rest: the timeline's last point is where).

The console shows one moment, like every other panel: ``app.console_history`` keeps the run's
messages, a travel in time (Step Back, a timeline click, the re-execution after a Stop) shows
those printed up to the point travelled to (its error mark too, or none), a restart or a new
session starts empty.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from engine.session import events as ev

from .console import ConsoleEntry, ConsolePanel
from .console_history import ConsoleHistory, rest_key
from .editor import CodeEditor, EditorError
from .status_bar import place_text, stop_place

RESTARTED = "— starting over —"


class ConsoleFeed(QObject):
    """Feeds ``console`` from ``controller``'s events; ``raise_console()`` shows its dock."""

    def __init__(self, controller, console: ConsolePanel, editor: CodeEditor,
                 raise_console: Callable[[], None]) -> None:
        super().__init__(console)
        self.controller = controller
        self.console = console
        self.editor = editor
        self.raise_console = raise_console
        self.history = ConsoleHistory()
        self._stop_due = False  # a run stopped: say where once the controller is at rest
        controller.events_arrived.connect(self.events_arrived)
        controller.state_changed.connect(lambda _snapshot: self._say_stopped())
        controller.session_replaced.connect(self._session_replaced)

    def _session_replaced(self, _session) -> None:
        # Nothing the old script printed belongs to the new one (the window's notes stay).
        self.history.clear()
        self._stop_due = False
        self.console.drop_run()

    def events_arrived(self, events) -> None:
        history = self.history
        added = len(history.shown())
        moved = False  # the moment changed: the run's rows are redrawn, not appended to
        for event in events:
            match event:
                case ev.Reset():
                    history.clear()
                    self._stop_due = False
                    self.editor.set_errors([])
                    self.console.clear()  # the window's "starting over" note too: said below
                    history.add([_row("info", RESTARTED)])
                    moved = True
                case ev.Output(text=text, line=line):
                    history.add([_row("output", text or "", line)], text=text or "")
                case ev.Warning(warning=warning, line=line):
                    message = getattr(warning, "message", str(warning))
                    history.add([_row("warning", message, line)], warning=True)
                case ev.Paused(travelled=True) | ev.Finished(travelled=True) | \
                        ev.Error(travelled=True):
                    self._travel(event)
                    moved = True
                case ev.Paused(point=point):
                    history.rest(rest_key(point))
                case ev.Finished(stopped=True):
                    self._stop_due = True
                case ev.Finished(point=point):
                    history.add([_row("info", "Script finished.")])
                    history.rest(rest_key(point))
                case ev.Error(point=point):
                    self._failed(event)
                    history.rest(rest_key(point))
        shown = history.shown()
        if moved:
            self.console.show_run(e for m in shown for e in m.entries)
            self.editor.set_errors([m.mark for m in shown if m.mark is not None])
        elif len(shown) > added:
            self.console.add_many(e for m in shown[added:] for e in m.entries)
        self._say_stopped()

    def _say_stopped(self) -> None:
        """"Stopped at line 7 (iteration 12).": the timeline's last point, read at rest (the
        worker's timeline may arrive after the event that said it stopped)."""
        if not self._stop_due or self.controller.busy:
            return
        self._stop_due = False
        where = place_text(*stop_place(self.controller.snapshot.timeline))
        self.console.add_many(self.history.add(
            [_row("info", f"Stopped at {where}." if where else "Stopped.")]).entries)

    # ------------------------------------------------------------------------ travel
    def _travel(self, event) -> None:
        """Show the console of the point ``event`` travelled to."""
        key = rest_key(event.point)
        diff = event.diff
        lines = list(diff.console) if diff is not None and diff.full else None
        count = len(lines) if lines is not None else \
            getattr(event.snapshot, "console_lines", None)
        if key is None or count is None:
            return
        last = lines[-1] if lines else None
        history = self.history
        if history.travel(key, count, last, self._warnings_between):
            if lines is None or history.printed() == "\n".join(lines) \
                    or history.retext(lines):
                return
        if lines is None:
            return
        # The messages seen do not reach this point: its lines, as the session printed them.
        history.rebuild(lines, lambda text: _row("output", text))
        if isinstance(event, ev.Error):
            self._failed(event, announce=False)
        elif isinstance(event, ev.Finished):
            history.add([_row("info", "Script finished.")])
        history.rest(key)

    def _warnings_between(self, lo: tuple | None, hi: tuple) -> int:
        """How many timeline points in (lo, hi] warned (their ``warning`` marker)."""
        timeline = self.controller.snapshot.timeline or ()
        # the warned points first: a replay lists them without making its 160,000 points
        marked = getattr(timeline, "marked", None)
        warned = marked("warning") if marked is not None else \
            [p for p in timeline if "warning" in p.markers]
        return sum(1 for p in warned if (lo is None or rest_key(p) > lo) and rest_key(p) <= hi)

    # ------------------------------------------------------------------------- errors
    def _failed(self, event: ev.Error, announce: bool = True) -> None:
        error, explanation = event.error, event.explanation
        line = getattr(error, "line", None) or getattr(explanation, "line", None)
        col = getattr(error, "col", None)
        message = getattr(error, "message", None) or str(error)
        cause = getattr(error, "__cause__", None)
        headline = f"{type(cause).__name__}: {cause}" if cause is not None else message
        entries = [_row("error", headline, line)]
        tooltip = headline
        if explanation is not None:
            text = f"{explanation.title}: {explanation.text}" if explanation.title \
                else explanation.text
            entries.append(_row("explanation", text, line))
            for fix in explanation.fixes:
                entries.append(_row("fix", f"fix: {fix}", line))
            tooltip = f"{headline}\n\n{explanation.text}"
            if explanation.fixes:
                tooltip += "\n\nUsual fixes:\n" + "\n".join(f"  {f}" for f in explanation.fixes)
        mark = EditorError(line, col if col is not None else -1, tooltip) \
            if line is not None else None
        self.history.add(entries, mark=mark)
        if announce:
            if mark is not None:
                self.editor.set_errors([mark])
            self.raise_console()


def _row(kind: str, text: str, line: int | None = None) -> ConsoleEntry:
    return ConsoleEntry(kind, text, line, run=True)
