"""The editor's long lines: wrapped at its edge, so the end of a pasted line is on screen, and
View ▸ Wrap Long Lines turns that off (then the line scrolls sideways, all of it)."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtGui import QTextCursor

from app.actions import ACTIONS_BY_ID
from app.editor import CodeEditor

LONG = "x = Variable(torch.ones(2, 2) * 2, requires_grad=True)  # " + "and more " * 12 + "END"
SOURCE = "import torch\n" + LONG + "\nprint(x)\n"


def _editor(qtbot) -> CodeEditor:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.resize(360, 300)
    editor.show()
    qtbot.waitExposed(editor)
    editor.set_source(SOURCE)
    return editor


def _end_of_line_2(editor):
    cursor = QTextCursor(editor.document().findBlockByNumber(1))
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    return editor.cursorRect(cursor)


def test_a_long_line_wraps_so_its_end_is_on_screen(qtbot):
    editor = _editor(qtbot)
    assert editor.fontMetrics().horizontalAdvance(LONG) > 2 * editor.viewport().width()
    assert editor.horizontalScrollBar().maximum() == 0  # nothing hidden to the right
    assert editor.viewport().rect().contains(_end_of_line_2(editor))
    assert editor.blockBoundingRect(editor.document().findBlockByNumber(1)).height() > \
        2 * editor.fontMetrics().height()  # one line, several rows
    assert editor.line_at_y(editor.blockBoundingGeometry(
        editor.document().findBlockByNumber(2)).translated(editor.contentOffset()).top() + 1) == 3

    editor.set_current_line(2)  # paused there: all of the line is marked, not its first row
    paused = [s for s in editor.extraSelections() if s.cursor.blockNumber() == 1]
    assert paused and paused[0].cursor.selectedText() == LONG


def test_wrapping_off_scrolls_sideways_to_the_end(qtbot):
    editor = _editor(qtbot)
    spec = ACTIONS_BY_ID["view.wrap_lines"]
    assert spec.checkable and spec.checked and spec.menu == "View"
    spec.handler(SimpleNamespace(editor=editor), False)
    scroll = editor.horizontalScrollBar()
    assert scroll.maximum() > 0
    scroll.setValue(scroll.maximum())
    assert editor.viewport().rect().contains(_end_of_line_2(editor))
    spec.handler(SimpleNamespace(editor=editor), True)
    assert editor.horizontalScrollBar().maximum() == 0
