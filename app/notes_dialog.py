"""File ▸ Edit Notes…: a teacher writes the note each script line shows when a run pauses there.

One row per script line: the line's code (read-only) and its note (plain text, typed in the
cell). The notes are the ``.gstep`` file's ``notes`` field: a dict from a line of the script
(1-based) to a string; an empty note is no note. They are shown as plain text, escaped, in the
banner above the editor (``Documents.show_note``), never as markup.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from engine.files.lines import line_count

_NOTE = 1  # the notes' column


class NotesDialog(QDialog):
    """The notes of ``script``'s lines; ``notes()`` is the edited dict once accepted."""

    def __init__(self, script: str, notes: dict[int, str], current_line: int | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("notesDialog")
        self.setWindowTitle("Edit Notes")
        self.resize(760, 520)
        lines = script.split("\n")[:line_count(script)]
        self.table = QTableWidget(len(lines), 2, self)
        self.table.setObjectName("notesTable")
        self.table.setHorizontalHeaderLabels(["Code", "Note"])
        self.table.setVerticalHeaderLabels([str(i) for i in range(1, len(lines) + 1)])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        self.table.setWordWrap(False)  # one script line per row, as the editor shows it
        code_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(_NOTE, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 300)
        for row, code in enumerate(lines):
            item = QTableWidgetItem(code)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            item.setFont(code_font)
            item.setToolTip(code)
            self.table.setItem(row, 0, item)
            self.table.setItem(row, _NOTE, QTableWidgetItem(notes.get(row + 1, "")))
        help_text = QLabel("A line's note shows above the editor when a run pauses at that line "
                           "(plain text). Clear a note to remove it.", self)
        help_text.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(help_text)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        if current_line is not None and 1 <= current_line <= len(lines):
            self.table.setCurrentCell(current_line - 1, _NOTE)
            self.table.scrollToItem(self.table.item(current_line - 1, _NOTE))

    def set_note(self, line: int, text: str) -> None:
        """Type ``text`` as line ``line``'s note (what a user's edit does)."""
        self.table.item(line - 1, _NOTE).setText(text)

    def notes(self) -> dict[int, str]:
        """The notes by line; blank ones are left out (the file keeps no empty note)."""
        out = {}
        for row in range(self.table.rowCount()):
            text = self.table.item(row, _NOTE).text()
            if text.strip():
                out[row + 1] = text
        return out
