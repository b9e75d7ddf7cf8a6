"""The console: the script's print output, the session's explanations and warnings.

Entries that concern a line are links: clicking one emits ``line_activated(line)`` and the
window moves the editor there.
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


class ConsolePanel(QWidget):
    line_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("console")
        self.entries: list[ConsoleEntry] = []
        self.view = QTextBrowser(self)
        self.view.setObjectName("consoleText")
        self.view.setOpenLinks(False)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.document().setMaximumBlockCount(MAX_ENTRIES)
        self.view.anchorClicked.connect(self._anchor_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)

    def clear(self) -> None:
        self.entries.clear()
        self.view.clear()

    def add(self, kind: str, text: str, line: int | None = None) -> None:
        self.add_many([ConsoleEntry(kind, text, line)])

    def add_many(self, entries) -> None:
        entries = list(entries)
        if not entries:
            return
        self.entries.extend(entries)
        del self.entries[:-MAX_ENTRIES]
        chunks = []
        for entry in entries:
            chunks.append(self._html(entry))
        cursor = self.view.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self.view.setTextCursor(cursor)
        for chunk in chunks:
            self.view.append(chunk)
        self.view.verticalScrollBar().setValue(self.view.verticalScrollBar().maximum())

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
