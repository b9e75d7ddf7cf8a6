"""The console: the script's print output, the session's explanations and warnings.

Entries that concern a line are links: clicking one emits ``line_activated(line)`` and the
window moves the editor there. The run's own entries (``run=True``: what the script printed,
its warnings and errors) show one moment: ``show_run`` replaces them all when the moment
changes; the window's notes (a file's description, "the script changed") stay.

The script's prints are joined into rows as a terminal joins them: ``print("x", end="")`` then
``print("y")`` is one row ``xy`` (``join_rows``). ``entries`` holds the rows shown.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

MAX_ENTRIES = 5000  # a print in a 10,000-iteration loop must not grow the document forever

_COLOURS = {
    "output": None,
    "info": "#6a737d",
    "warning": "#b07800",
    "error": "#d1242f",
    "explanation": "#0a67c2",
    "fix": "#1a7f37",
}


@dataclass(frozen=True)
class ConsoleEntry:
    kind: str  # output, info, warning, error, explanation, fix
    text: str
    line: int | None = None
    run: bool = False  # the run's own output at the moment shown (replaced by show_run)


def _continues(row: ConsoleEntry, entry: ConsoleEntry) -> bool:
    """``entry`` (a print's text) goes on ``row``'s line: the row is a print of the same run
    that left its line open (``print(..., end="")``)."""
    return (row.kind == entry.kind == "output" and row.run == entry.run
            and not row.text.endswith("\n"))


def join_rows(entries) -> list[ConsoleEntry]:
    """The console's rows for ``entries``: each print continues the open line of the print
    before it, as in a terminal (its link names the line where the row began). Any other entry
    (a warning, an error, a note) ends the open line."""
    rows: list[ConsoleEntry] = []
    for entry in entries:
        if rows and _continues(rows[-1], entry):
            last = rows[-1]
            rows[-1] = ConsoleEntry(last.kind, last.text + entry.text,
                                    last.line if last.line is not None else entry.line, last.run)
        else:
            rows.append(entry)
    return rows


class ConsolePanel(QWidget):
    line_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("console")
        self.entries: list[ConsoleEntry] = []
        # Where each entry's paragraphs begin in the document, to take the last ones away
        # (Step Back) or the first ones (past MAX_ENTRIES) without redrawing the rest.
        self._starts: list[int] = []
        self._run_dropped = 0  # how many of the run's first entries went past MAX_ENTRIES
        self.view = QTextBrowser(self)
        self.view.setObjectName("consoleText")
        self.view.setOpenLinks(False)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.anchorClicked.connect(self._anchor_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    def clear(self) -> None:
        self.entries.clear()
        self._starts = []
        self._run_dropped = 0
        self.view.clear()

    def show_run(self, entries) -> None:
        """The run's entries at the moment shown are ``entries`` (all of them, from the run's
        start): the run's previous ones go (the window's notes stay, before them)."""
        entries = join_rows(entries)
        runs = [i for i, e in enumerate(self.entries) if e.run]
        dropped = self._run_dropped  # the run's first rows, gone past MAX_ENTRIES
        same = 0  # the rows both moments share are left as they are
        if len(entries) >= dropped:
            ahead = entries[dropped:]
            while same < min(len(runs), len(ahead)) and self.entries[runs[same]] == ahead[same]:
                same += 1
            if same == len(runs):
                self._append(ahead[same:])  # only later rows: nothing to take back
                return
            if all(e.run for e in self.entries[runs[same]:]):
                self._truncate(runs[same])  # a step back: the later rows go, the rest stays
                self._append(ahead[same:])
                return
        kept = [e for e in self.entries if not e.run]
        self.clear()
        self._run_dropped = max(0, len(entries) - MAX_ENTRIES)
        self._append(kept + entries[self._run_dropped:])

    def drop_run(self) -> None:
        """The run is gone (a new session): only the window's notes stay."""
        if any(e.run for e in self.entries):
            self.show_run([])

    def add(self, kind: str, text: str, line: int | None = None) -> None:
        self.add_many([ConsoleEntry(kind, text, line)])

    def add_many(self, entries) -> None:
        """Show ``entries`` after the rows shown; a print continues the last row's open line."""
        entries = list(entries)
        if not entries:
            return
        if self.entries and _continues(self.entries[-1], entries[0]):
            # The open line is redrawn with its continuation (one paragraph per row).
            entries.insert(0, self.entries[-1])
            self._truncate(len(self.entries) - 1)
        self._append(join_rows(entries))

    def _append(self, rows) -> None:
        """Append ``rows`` (already joined) as paragraphs."""
        if not rows:
            return
        document = self.view.document()
        cursor = self.view.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self.view.setTextCursor(cursor)
        for entry in rows:
            # Where its paragraph begins: append() starts a new one after the last (the empty
            # document's first paragraph is filled instead).
            self._starts.append(document.characterCount() if self.entries else 0)
            self.entries.append(entry)
            self.view.append(self._html(entry))
        if len(self.entries) > MAX_ENTRIES:
            self._cut_front(len(self.entries) - MAX_ENTRIES)
        self.view.verticalScrollBar().setValue(self.view.verticalScrollBar().maximum())

    def _cut_front(self, count: int) -> None:
        """Remove the first ``count`` entries from the document."""
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self._starts[count], QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        shift = self._starts[count]
        self._run_dropped += sum(1 for e in self.entries[:count] if e.run)
        del self.entries[:count]
        self._starts = [start - shift for start in self._starts[count:]]

    def _truncate(self, index: int) -> None:
        """Remove ``entries[index:]`` from the document (the count of rows cut past
        MAX_ENTRIES stays: the rows kept still follow them)."""
        if index == 0:
            dropped = self._run_dropped
            self.clear()
            self._run_dropped = dropped
            return
        cursor = QTextCursor(self.view.document())
        cursor.setPosition(self._starts[index] - 1)  # with the paragraph break before it
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del self.entries[index:]
        del self._starts[index:]

    @staticmethod
    def _html(entry: ConsoleEntry) -> str:
        colour = _COLOURS.get(entry.kind)
        text = html.escape(entry.text.strip("\n"))
        label = {"warning": "⚠ ", "error": "✖ ", "explanation": "» ", "fix": "→ "}.get(
            entry.kind, "")
        body = f"{label}{text}"
        if colour:
            body = f"<span style='color:{colour}'>{body}</span>"
        if entry.line is not None:
            # Where it came from, after the text: a link that moves the editor to the line.
            body += (f"  <a href='line:{entry.line}' style='color:#8c959f;"
                     f"font-size:small'>line&nbsp;{entry.line}</a>")
        # pre-wrap: the script's spacing is kept, long lines still wrap at spaces.
        return f"<div style='white-space:pre-wrap'>{body}</div>"

    def _anchor_clicked(self, url) -> None:
        target = url.toString()
        if target.startswith("line:"):
            self.line_activated.emit(int(target.split(":", 1)[1]))

    def text(self) -> str:
        return "\n".join(e.text for e in self.entries)
