"""The script editor: line numbers, a breakpoint gutter, the paused line, errors underlined."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QPainter,
    QPalette,
    QPolygonF,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
    QTextOption,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from .highlighter import PygmentsHighlighter


@dataclass(frozen=True)
class EditorError:
    """An error shown in the editor: a wavy underline at (line, col) and a tooltip."""

    line: int  # 1-based
    col: int  # 0-based; -1 underlines the whole line
    message: str
    end_col: int | None = None


class _Gutter(QWidget):
    """Line numbers and breakpoint dots; a click toggles the breakpoint of that line."""

    def __init__(self, editor: "CodeEditor") -> None:
        super().__init__(editor)
        self.editor = editor
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click: toggle a breakpoint (F9). Right-click: make it conditional.")

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event) -> None:
        self.editor.paint_gutter(self, event)

    def mousePressEvent(self, event) -> None:
        line = self.editor.line_at_y(event.position().y())
        if line is None:
            return
        if event.button() == Qt.MouseButton.RightButton:
            self.editor.edit_condition(line, event.globalPosition().toPoint())
        else:
            self.editor.toggle_breakpoint(line)


class CodeEditor(QPlainTextEdit):
    """A Python editor for the session's script.

    Signals: ``breakpoint_toggled(line, on)`` (1-based lines); ``lines_moved(remap)`` after an
    ordinary edit moved or removed lines (``remap(old_line) -> new_line or None``: what the
    document's other per-line state, its notes, does with it); ``text_replaced()`` after the
    whole text was replaced (a select-all paste, ``setPlainText``): the breakpoints, conditions
    and error marks are gone already; the window starts a fresh document.

    Breakpoints, conditions and error marks follow their lines as in other code editors: a
    deleted line takes its breakpoint with it, lines inserted above shift it down, Enter at the
    start of a line moves it with the line's text.
    """

    breakpoint_toggled = Signal(int, bool)
    condition_changed = Signal(int, str)  # line, condition ("" for none)
    lines_moved = Signal(object)  # remap(old_line) -> new_line | None
    text_replaced = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.5))
        self.setFont(font)
        # A long line wraps at the editor's edge: the dock is narrow, and a pasted line cut off
        # at its right (the paused one included) hides what the debugger is about to run.
        self.set_wrap(True)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.breakpoints: set[int] = set()
        self.conditions: dict[int, str] = {}  # line -> condition of a conditional breakpoint
        self.current_line: int | None = None  # the line the session is paused before
        self.errors: list[EditorError] = []
        self._dark = False
        # Built just after the editor first shows: Pygments compiles its lexer's regular
        # expressions on first use (~0.1 s), which the window's cold start need not wait for.
        self.highlighter: PygmentsHighlighter | None = None
        self._gutter = _Gutter(self)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._refresh_selections)
        self._known_text = ""  # the text before the edit contentsChange reports
        self._loading = False  # set_source: the caller sets the new document's state
        self.document().contentsChange.connect(self._shift_marks)
        self._update_gutter_width()
        self._refresh_selections()

    # ------------------------------------------------------------------------------- state
    def ensure_highlighter(self) -> PygmentsHighlighter:
        if self.highlighter is None:
            self.highlighter = PygmentsHighlighter(self.document(), dark=self._dark)
        return self.highlighter

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.highlighter is None:
            QTimer.singleShot(0, self.ensure_highlighter)

    def set_dark(self, dark: bool) -> None:
        self._dark = dark
        if self.highlighter is not None:
            self.highlighter.set_dark(dark)
        self._refresh_selections()
        self._gutter.update()

    def set_wrap(self, on: bool) -> None:
        """Wrap long lines at the editor's width (off: one row per line, scrolled sideways)."""
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if on
                             else QPlainTextEdit.LineWrapMode.NoWrap)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)

    def set_source(self, text: str) -> None:
        """Replace the text (a new file): clears undo history, errors and the paused line."""
        self.errors = []
        self.current_line = None
        self.breakpoints = set()
        self.conditions = {}
        self._loading = True
        try:
            self.setPlainText(text)
        finally:
            self._loading = False
        self.document().setModified(False)
        self._refresh_selections()

    def replace_text(self, text: str, *, cursor_line: int | None = None) -> None:
        """Make the text ``text`` as one undoable edit (the builder's gestures).

        Only the part that differs is replaced, so the cursor, the scroll position and the
        breakpoints of untouched lines stay put, and Ctrl+Z takes the whole gesture back.
        """
        old = self.toPlainText()
        if old == text:
            return
        start = 0
        limit = min(len(old), len(text))
        while start < limit and old[start] == text[start]:
            start += 1
        end_old, end_new = len(old), len(text)
        while end_old > start and end_new > start and old[end_old - 1] == text[end_new - 1]:
            end_old -= 1
            end_new -= 1
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setPosition(start)
        cursor.setPosition(end_old, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(text[start:end_new])
        cursor.endEditBlock()
        if cursor_line is not None:
            # Show the new line without taking the focus from the graph or the palette.
            block = self.document().findBlockByNumber(max(0, cursor_line - 1))
            if block.isValid():
                self.setTextCursor(QTextCursor(block))
                self.ensureCursorVisible()

    def set_breakpoints(self, lines, conditions=None) -> None:
        self.breakpoints = set(int(n) for n in lines)
        self.conditions = {int(k): v for k, v in (conditions or {}).items() if v}
        self._gutter.update()

    def toggle_breakpoint(self, line: int) -> None:
        on = line not in self.breakpoints
        if on:
            self.breakpoints.add(line)
        else:
            self.breakpoints.discard(line)
            self.conditions.pop(line, None)
        self._gutter.update()
        self.breakpoint_toggled.emit(line, on)

    def set_condition(self, line: int, condition: str) -> None:
        """Make ``line``'s breakpoint conditional ("" makes it plain again)."""
        condition = condition.strip()
        self.breakpoints.add(line)
        if condition:
            self.conditions[line] = condition
        else:
            self.conditions.pop(line, None)
        self._gutter.update()
        self.condition_changed.emit(line, condition)

    def edit_condition(self, line: int, where=None) -> None:
        from PySide6.QtWidgets import QInputDialog

        text, ok = QInputDialog.getText(
            self, "Conditional breakpoint",
            f"Pause at line {line} only when this holds (e.g. loss.item() > 1 or epoch == 3):",
            text=self.conditions.get(line, ""))
        if ok:
            self.set_condition(line, text)

    def cursor_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    def set_current_line(self, line: int | None) -> None:
        """Mark the line the session is paused at (None: not paused) and scroll to it."""
        self.current_line = line
        if line is not None:
            block = self.document().findBlockByNumber(line - 1)
            if block.isValid():
                cursor = QTextCursor(block)
                self.setTextCursor(cursor)
                self.ensureCursorVisible()
                # Before the first layout the viewport has no size yet: scroll again after it.
                QTimer.singleShot(0, self.ensureCursorVisible)
        self._refresh_selections()
        self._gutter.update()

    def set_errors(self, errors) -> None:
        self.errors = list(errors)
        self._refresh_selections()
        self._gutter.update()

    def go_to_line(self, line: int, col: int = 0) -> None:
        block = self.document().findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            return
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=max(0, min(col, block.length() - 1)))
        self.setTextCursor(cursor)
        self.centerCursor()
        self.setFocus()

    # ---------------------------------------------------------------------------- painting
    def gutter_width(self) -> int:
        digits = max(3, len(str(self.blockCount())))
        return 22 + self.fontMetrics().horizontalAdvance("9") * digits + 8

    def _update_gutter_width(self, *_args) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_gutter_width()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def line_at_y(self, y: float) -> int | None:
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid():
            bottom = top + self.blockBoundingRect(block).height()
            if top <= y < bottom:
                return block.blockNumber() + 1
            block = block.next()
            top = bottom
        return None

    def paint_gutter(self, gutter: QWidget, event) -> None:
        palette = self.palette()
        painter = QPainter(gutter)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        background = palette.color(QPalette.ColorRole.Base).darker(104 if not self._dark else 85)
        painter.fillRect(event.rect(), background)
        dim = palette.color(QPalette.ColorRole.PlaceholderText)
        bright = palette.color(QPalette.ColorRole.Text)
        error_lines = {e.line for e in self.errors}
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        height = self.fontMetrics().height()
        width = gutter.width()
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + self.blockBoundingRect(block).height()
            if block.isVisible() and bottom >= event.rect().top():
                line = block.blockNumber() + 1
                painter.setPen(bright if line == self.cursor_line() else dim)
                painter.drawText(0, int(top), width - 6, height,
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                                 str(line))
                cy = top + height / 2
                if line in self.breakpoints:
                    painter.setPen(Qt.PenStyle.NoPen)
                    conditional = line in self.conditions
                    painter.setBrush(QColor("#e51400"))
                    painter.drawEllipse(QRect(4, int(cy - 5), 10, 10))
                    if conditional:  # VS Code's mark: a bar across the dot
                        painter.setBrush(QColor("#ffffff"))
                        painter.drawRect(QRect(6, int(cy - 1), 6, 3))
                if line == self.current_line:
                    # The debugger's arrow: "about to run this line".
                    painter.setPen(QColor("#8a6d00") if not self._dark else QColor("#000000"))
                    painter.setBrush(QColor("#ffcc00"))
                    arrow = QPolygonF()
                    for x, y in ((3, cy - 5), (11, cy - 5), (16, cy), (11, cy + 5), (3, cy + 5)):
                        arrow.append(_point(x, y))
                    painter.drawPolygon(arrow)
                if line in error_lines:
                    # Drawn last, over the breakpoint's dot and the arrow: on a dot the mark is
                    # white on red (red on red would hide it), elsewhere a red "!" in a ring.
                    on_dot = line in self.breakpoints
                    if not on_dot:
                        painter.setPen(QColor("#e51400"))
                        painter.setBrush(background)
                        painter.drawEllipse(QRect(4, int(cy - 5), 10, 10))
                    bold = painter.font()
                    bold.setBold(True)
                    painter.setFont(bold)
                    painter.setPen(QColor("#ffffff") if on_dot else QColor("#e51400"))
                    painter.drawText(QRect(4, int(cy - 6), 10, 12), Qt.AlignmentFlag.AlignCenter,
                                     "!")
                    bold.setBold(False)
                    painter.setFont(bold)
            block = block.next()
            top = bottom
        painter.end()

    def _refresh_selections(self) -> None:
        selections = []
        if self.current_line is None and not self.isReadOnly():
            cursor_line = QTextEdit.ExtraSelection()
            colour = self.palette().color(QPalette.ColorRole.Highlight)
            colour.setAlpha(22)
            cursor_line.format.setBackground(colour)
            cursor_line.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor_line.cursor = self.textCursor()
            cursor_line.cursor.clearSelection()
            selections.append(cursor_line)
        if self.current_line is not None:
            block = self.document().findBlockByNumber(self.current_line - 1)
            if block.isValid():
                paused = QTextEdit.ExtraSelection()
                paused.format.setBackground(QColor("#4d4100") if self._dark else QColor("#fff3b0"))
                paused.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                paused.cursor = QTextCursor(block)  # all of it: a wrapped line has many rows
                paused.cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock,
                                           QTextCursor.MoveMode.KeepAnchor)
                selections.append(paused)
        for error in self.errors:
            block = self.document().findBlockByNumber(error.line - 1)
            if not block.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            sel.format.setUnderlineColor(QColor("#e51400"))
            sel.format.setToolTip(error.message)
            cursor = QTextCursor(block)
            text = block.text()
            start, end = _error_span(text, error)
            cursor.setPosition(block.position() + start)
            cursor.setPosition(block.position() + end, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            selections.append(sel)
        self.setExtraSelections(selections)
        self._gutter.update()

    def error_at(self, line: int, col: int) -> EditorError | None:
        for error in self.errors:
            if error.line != line:
                continue
            block = self.document().findBlockByNumber(line - 1)
            start, end = _error_span(block.text(), error)
            if start <= col <= end:
                return error
        return None

    def event(self, event) -> bool:
        # Errors explain themselves on hover, where they are underlined.
        if event.type() == event.Type.ToolTip:
            cursor = self.cursorForPosition(event.pos() - self.viewport().pos())
            error = self.error_at(cursor.blockNumber() + 1, cursor.positionInBlock())
            if error is not None:
                QToolTip.showText(event.globalPos(), error.message, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def _shift_marks(self, position: int, removed: int, added: int) -> None:
        # Breakpoints, conditions and error marks follow their lines (see the class docstring).
        text = self.toPlainText()
        old = self._known_text
        if text == old:
            return  # a format change (the highlighter), not an edit
        self._known_text = text
        if self._loading:
            return
        if position == 0 and old.strip() and removed >= len(old):
            # The whole text was replaced: none of its per-line state belongs to the new one.
            self.breakpoints = set()
            self.conditions = {}
            self.errors = []
            self.current_line = None
            self._refresh_selections()
            self.text_replaced.emit()
            return
        remap = line_remap(old, text, position, added)
        if self.breakpoints:
            moved = {n: remap(n) for n in self.breakpoints}
            self.breakpoints = {m for m in moved.values() if m is not None}
            self.conditions = {moved[n]: c for n, c in self.conditions.items()
                               if moved.get(n) is not None}
        if self.errors:
            errors = []
            for e in self.errors:
                m = remap(e.line)
                if m is not None:
                    errors.append(EditorError(m, e.col, e.message, e.end_col)
                                  if m != e.line else e)
            self.errors = errors
            self._refresh_selections()
        self._gutter.update()
        self.lines_moved.emit(remap)

    def keyPressEvent(self, event) -> None:
        # Enter keeps the indentation of the line (and indents after a colon), as Python editors do.
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            block_text = self.textCursor().block().text()
            indent = block_text[: len(block_text) - len(block_text.lstrip())]
            if block_text.rstrip().endswith(":"):
                indent += "    "
            self.textCursor().insertText("\n" + indent)
            self.ensureCursorVisible()
            return
        if event.key() == Qt.Key.Key_Tab and not event.modifiers():
            self.textCursor().insertText("    ")
            return
        super().keyPressEvent(event)



def line_remap(old: str, new: str, position: int, added: int):
    """Where each line of ``old`` went in ``new`` after one edit at ``position`` (``added``
    characters inserted there): ``remap(line) -> line or None`` (1-based; None: deleted).

    Lines before the edit and after it keep their text; in between, the old lines are paired
    with the new ones from the top and the old lines left over were deleted. So typing in a line
    keeps its marks, Enter at the start of a line moves them down with the text, and deleting a
    line takes them away.
    """
    old_lines, new_lines = old.split("\n"), new.split("\n")
    first = new.count("\n", 0, max(0, position))  # 0-based line of the edit's start
    last = new.count("\n", 0, max(0, position + added))  # ... and of its end, in ``new``
    limit = min(len(old_lines), len(new_lines))
    p = 0
    while p < min(limit, first + 1) and old_lines[p] == new_lines[p]:
        p += 1
    p = max(p, min(first, limit))
    s = 0
    tail_limit = min(limit - p, len(new_lines) - last)
    while s < tail_limit and old_lines[-1 - s] == new_lines[-1 - s]:
        s += 1
    s = max(s, 0)
    delta = len(new_lines) - len(old_lines)
    old_middle = len(old_lines) - p - s
    new_middle = len(new_lines) - p - s

    def remap(line: int) -> int | None:
        if line <= p:
            return line
        if line > len(old_lines) - s:
            return line + delta
        k = line - p - 1
        return p + k + 1 if k < new_middle else None

    remap.old_middle = old_middle  # for tests and debugging
    return remap


def _error_span(text: str, error: EditorError) -> tuple[int, int]:
    if error.col is None or error.col < 0 or error.col >= len(text):
        stripped = len(text) - len(text.lstrip())
        return stripped, max(stripped + 1, len(text))
    end = error.end_col if error.end_col and error.end_col > error.col else None
    if end is None:
        # Underline the word at the column: a name, a call, a literal.
        end = error.col
        while end < len(text) and (text[end].isalnum() or text[end] in "_."):
            end += 1
        end = max(end, error.col + 1)
    return error.col, min(end, len(text))


def _point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)
