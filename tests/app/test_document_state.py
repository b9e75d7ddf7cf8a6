"""Issue 16: what the window shows belongs to the text being debugged (journeys, real widgets).

Breakpoints, notes, title, description and error marks are the document's: replacing the whole
text starts a fresh document, ordinary edits move the marks with their lines.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication, QTextCursor

from engine.session.events import Status
from tests.app.window_support import position, status, trigger, wait_idle

LOOP = ("import torch\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "for i in range(3):\n"
        "    loss = (w * 2).sum()\n"
        "    loss.backward()\n"
        "print(w.grad)\n")


@pytest.fixture
def window(qtbot, make_window):
    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None)
    wait_idle(qtbot, window)
    return window


def paste_over_everything(editor, text: str) -> None:
    """Ctrl+A, Ctrl+V: as the user replaces the whole script with one from elsewhere."""
    QGuiApplication.clipboard().setText(text)
    editor.setFocus()
    editor.selectAll()
    editor.paste()


def type_at_line_start(editor, line: int, text: str) -> None:
    cursor = QTextCursor(editor.document().findBlockByNumber(line - 1))
    editor.setTextCursor(cursor)
    editor.insertPlainText(text)


def test_paste_over_all_starts_a_fresh_document(qtbot, window):
    # The demo is the "What is a leaf?" example: a breakpoint, notes, a title.
    assert window.editor.breakpoints
    assert window.documents.notes
    assert window.documents.title != "Untitled"
    assert position(window) is not None  # paused at the example's breakpoint
    paste_over_everything(window.editor, LOOP)
    wait_idle(qtbot, window)
    assert window.editor.toPlainText() == LOOP
    assert window.editor.breakpoints == set() and window.editor.conditions == {}
    assert window.editor.errors == []
    assert window.documents.notes == {} and window.documents.graph_file is None
    assert window.documents.title == "Untitled"
    assert window.windowTitle().startswith("Untitled")
    assert not window.note_banner.isVisible()
    # The graph shows nothing of the old script: the new one has not run yet.
    assert status(window) == Status.IDLE
    assert not any(n.startswith("t:t1") for n in window.graph_view.nodes)
    # The next run does not stop at the old breakpoint (line 23 does not exist; line 5 would).
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.FINISHED
    assert any("[6., 6.]" in e.text for e in window.console.entries)


def test_the_save_prompt_of_a_pasted_script_says_untitled(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    paste_over_everything(window.editor, LOOP)
    wait_idle(qtbot, window)
    asked = []

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", question)
    assert not window.documents.maybe_discard()
    assert asked == ["Save the changes to Untitled?"]


def test_a_stale_open_error_banner_goes_with_the_text(qtbot, window, tmp_path):
    broken = tmp_path / "broken.gstep"
    broken.write_text("{ not json")
    assert not window.open_path(str(broken))
    assert window.note_banner.isVisible() and "Could not open" in window.note_banner.text()
    paste_over_everything(window.editor, LOOP)
    assert not window.note_banner.isVisible()


def test_new_file_and_examples_bring_their_own_state(qtbot, window):
    from tests.app.test_screenshots import EXAMPLES

    window.ask_before_discarding = False
    window.editor.document().setModified(False)
    trigger(qtbot, window, "file.new")
    assert window.editor.breakpoints == set()
    assert window.documents.notes == {} and window.documents.title == "Untitled"
    assert window.open_example(str(EXAMPLES / "09_linear_regression_sgd.gstep"))
    wait_idle(qtbot, window)
    assert window.editor.breakpoints == {14}
    assert window.documents.title == "Linear regression with SGD"
    assert 13 in window.documents.notes


def test_inserting_lines_above_a_breakpoint_moves_it_down(qtbot, window):
    editor = window.editor
    (line,) = editor.breakpoints  # z.backward() in the demo
    note = window.documents.notes[line]
    assert "backward" in editor.document().findBlockByNumber(line - 1).text()
    type_at_line_start(editor, 3, "# one\n# two\n")
    assert editor.breakpoints == {line + 2}
    assert window.documents.notes[line + 2] == note
    # Enter at the start of the breakpoint's line moves the breakpoint with the text.
    type_at_line_start(editor, line + 2, "\n")
    assert editor.breakpoints == {line + 3}
    assert "backward" in editor.document().findBlockByNumber(line + 2).text()
    # The edited script stops at the moved breakpoint, on the same statement.
    trigger(qtbot, window, "debug.continue")
    assert status(window) == Status.PAUSED and position(window).line == line + 3


def test_deleting_a_line_takes_its_breakpoint_with_it(qtbot, window):
    editor = window.editor
    (line,) = editor.breakpoints
    editor.toggle_breakpoint(line + 2)
    cursor = QTextCursor(editor.document().findBlockByNumber(line - 1))
    cursor.movePosition(QTextCursor.MoveOperation.NextBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    assert "z.backward()" not in editor.toPlainText()
    assert editor.breakpoints == {line + 1}
    assert line not in window.documents.notes


def test_typing_in_a_line_keeps_its_breakpoint_and_condition(qtbot, window):
    editor = window.editor
    (line,) = editor.breakpoints
    editor.set_condition(line, "True")
    block = editor.document().findBlockByNumber(line - 1)
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    editor.setTextCursor(cursor)
    editor.insertPlainText("  # go")
    assert editor.breakpoints == {line} and editor.conditions == {line: "True"}


def test_error_marks_are_the_documents_too(qtbot, window):
    editor = window.editor
    paste_over_everything(editor, "import torch\nx = torch.ones(2\ny = 3\n")
    trigger(qtbot, window, "debug.continue")
    assert editor.errors
    bad = editor.errors[0].line
    type_at_line_start(editor, 1, "# a comment\n")
    assert editor.errors[0].line == bad + 1  # the mark moved with its line
    paste_over_everything(editor, LOOP)
    assert editor.errors == []
