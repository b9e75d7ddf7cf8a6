"""File ▸ Edit Notes… (scenario 7, a teacher's file): the notes are written in the window, saved
in the .gstep file's ``notes`` field, shown as plain text at the line paused at, and they make
the document modified, whatever the editor's undo does to the text. The file read back with
``engine.files.load`` is the oracle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.files import load
from tests.app.window_support import position, trigger, wait_idle

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / \
    "15_inplace_modification_error.gstep"


@pytest.fixture
def teacher_file(tmp_path):
    path = tmp_path / "lesson.gstep"
    shutil.copy(EXAMPLE, path)
    return path


def edit_notes(monkeypatch, window, change) -> None:
    """File ▸ Edit Notes…, where ``change(dialog)`` types in the dialog and OK closes it."""
    from app.notes_dialog import NotesDialog

    def typed_then_ok(dialog):
        change(dialog)
        return True

    monkeypatch.setattr(NotesDialog, "exec", typed_then_ok)
    window.actions_by_id["file.edit_notes"].trigger()


def test_notes_written_in_the_window_are_saved_in_the_file(qtbot, make_window, teacher_file,
                                                          monkeypatch):
    before = load(teacher_file).notes
    assert before  # the example has notes on lines 4, 5 and 7
    window = make_window(open_demo=False)
    assert window.open_path(str(teacher_file))
    wait_idle(qtbot, window)
    assert not window.isWindowModified()
    seen = {}

    def change(dialog):
        seen.update(dialog.notes())
        dialog.set_note(4, "exp saves its <b>result</b> & reuses it")
        dialog.set_note(6, "sum: the gradient of each element is 1")
        dialog.set_note(7, "  ")  # cleared: no note

    edit_notes(monkeypatch, window, change)
    assert seen == before  # the dialog opened with the file's notes
    assert window.isWindowModified()
    assert window.documents.save_file()
    assert not window.isWindowModified()
    saved = load(teacher_file).notes
    assert saved == {4: "exp saves its <b>result</b> & reuses it", 5: before[5],
                     6: "sum: the gradient of each element is 1"}


def test_a_new_note_shows_escaped_at_the_line_paused_at(qtbot, make_window, teacher_file,
                                                       monkeypatch):
    window = make_window(open_demo=False)
    assert window.open_path(str(teacher_file))
    window.editor.toggle_breakpoint(4)
    trigger(qtbot, window, "debug.continue")
    assert position(window).line == 4
    edit_notes(monkeypatch, window, lambda d: d.set_note(4, "<a href='x'>not a link</a>"))
    banner = window.note_banner
    assert banner.isVisible()
    assert "&lt;a href='x'&gt;not a link&lt;/a&gt;" in banner.text().replace("&#x27;", "'")
    assert "<a href" not in banner.text()


def test_notes_keep_the_document_modified_through_an_undo_of_the_text(
        qtbot, make_window, teacher_file, monkeypatch):
    window = make_window(open_demo=False)
    assert window.open_path(str(teacher_file))
    wait_idle(qtbot, window)
    edit_notes(monkeypatch, window, lambda d: d.set_note(2, "a leaf"))
    assert window.isWindowModified()
    window.editor.setFocus()
    qtbot.keyClicks(window.editor, "#")
    window.actions_by_id["edit.undo"].trigger()
    assert not window.editor.document().isModified()  # the text is back as saved ...
    assert window.isWindowModified() and window.documents.is_modified()  # ... the notes not
    original = load(teacher_file).notes
    edit_notes(monkeypatch, window, lambda d: d.set_note(2, ""))  # the note taken away again
    assert window.documents.notes == original
    assert not window.isWindowModified()
