"""The console feed: what the session's events add to the console (and the editor's error marks).

``ConsoleFeed`` listens to ``SessionController.events_arrived`` and turns each batch into
``ConsoleEntry`` rows: the script's output, lint warnings, an error with its explanation and
usual fixes (also marked in the editor, and the console raised), "Script finished." / "Stopped.".
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from engine.session import events as ev

from .console import ConsoleEntry, ConsolePanel
from .editor import CodeEditor, EditorError


class ConsoleFeed(QObject):
    """Feeds ``console`` from ``controller``'s events; ``raise_console()`` shows its dock."""

    def __init__(self, controller, console: ConsolePanel, editor: CodeEditor,
                 raise_console: Callable[[], None]) -> None:
        super().__init__(console)
        self.console = console
        self.editor = editor
        self.raise_console = raise_console
        controller.events_arrived.connect(self.events_arrived)

    def events_arrived(self, events) -> None:
        entries: list[ConsoleEntry] = []
        for event in events:
            match event:
                case ev.Output(text=text, line=line):
                    entries.append(ConsoleEntry("output", text or "", line))
                case ev.Warning(warning=warning, line=line):
                    message = getattr(warning, "message", str(warning))
                    entries.append(ConsoleEntry("warning", message, line))
                case ev.Error():
                    entries.extend(self._error_entries(event))
                case ev.Finished(travelled=False, stopped=stopped):
                    entries.append(ConsoleEntry(
                        "info", "Stopped." if stopped else "Script finished."))
                case ev.Reset():
                    self.editor.set_errors([])
        if entries:
            self.console.add_many(entries)

    def _error_entries(self, event: ev.Error) -> list[ConsoleEntry]:
        error, explanation = event.error, event.explanation
        line = getattr(error, "line", None) or getattr(explanation, "line", None)
        col = getattr(error, "col", None)
        message = getattr(error, "message", None) or str(error)
        cause = getattr(error, "__cause__", None)
        headline = f"{type(cause).__name__}: {cause}" if cause is not None else message
        entries = [ConsoleEntry("error", headline, line)]
        tooltip = headline
        if explanation is not None:
            text = f"{explanation.title}: {explanation.text}" if explanation.title \
                else explanation.text
            entries.append(ConsoleEntry("explanation", text, line))
            for fix in explanation.fixes:
                entries.append(ConsoleEntry("fix", f"fix: {fix}", line))
            tooltip = f"{headline}\n\n{explanation.text}"
            if explanation.fixes:
                tooltip += "\n\nUsual fixes:\n" + "\n".join(f"  {f}" for f in explanation.fixes)
        if line is not None:
            self.editor.set_errors([EditorError(line, col if col is not None else -1, tooltip)])
        self.raise_console()
        return entries
