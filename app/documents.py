"""The window's documents: new, open, examples, save, autosave and recovery of graph files.

``Documents`` knows which file the editor shows (``path``, ``graph_file``, ``title``) and turns
a ``GraphFile`` into a session (through the controller), the editor's text and breakpoints, the
data breakpoints and the graph view's folding, and back into a ``GraphFile`` on save. It also owns
the banner above the editor (a file that failed to open, recovered work, a line's note).
"""

from __future__ import annotations

import time
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.session.events import Status

from .words import counted

if TYPE_CHECKING:  # pragma: no cover
    from .main_window import MainWindow

# the banner's own links (an internal scheme: no text from a file can spell an action)
BANNER_RECOVER = "gradstep-banner:recover"
BANNER_DISCARD = "gradstep-banner:discard"

FILE_FILTER = "gradstep files (*.gstep *.py);;Graph files (*.gstep);;Python scripts (*.py)"
OPENABLE = (".gstep", ".py")
AUTOSAVE_DELAY_MS = 2000
UNTITLED = "Untitled"


class Documents(QObject):
    """Opens and saves the window's graph files; keeps the user's text safe while typing."""

    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.window = window
        self.path: str | None = None  # the file being edited (None: untitled or an example)
        self.graph_file = None  # the GraphFile it came from (keeps notes and settings on save)
        self.recorded = None  # (graph, layout) of a file recorded from real PyTorch
        self.title = UNTITLED
        self.notes: dict[int, str] = {}  # the teaching notes by line; they move with their lines
        # The notes as last opened or saved: the document is modified while they differ, whatever
        # the editor's undo does to the text (the notes are not on its undo stack).
        self.saved_notes: dict[int, str] = {}
        self._recovery_entry = None
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        window.editor.textChanged.connect(self.autosave_timer.start)
        window.editor.text_replaced.connect(self.text_replaced)
        window.editor.lines_moved.connect(self._lines_moved)
        window.note_banner.linkActivated.connect(self._banner_link)

    @property
    def seed(self) -> int:
        """The seed the file's settings give its runs (0 without a file)."""
        return getattr(getattr(self.graph_file, "settings", None), "seed", 0) or 0

    # ------------------------------------------------------------------------------ opening
    def open_demo(self) -> None:
        """The seed demo, paused before backward(): the first thing a new user sees teaches."""
        from .demo import demo_graph_file

        self.open_graph_file(demo_graph_file(), path=None, run_to_first_breakpoint=True)

    def open_path(self, path: str) -> bool:
        """Open a .gstep or .py file; on failure the current session stays and the error shows."""
        gf = self._load(path)
        ok = gf is not None and self.open_graph_file(gf, path=str(path),
                                                     run_to_first_breakpoint=False)
        if ok:
            self.window.settings.add_recent(str(path))
        return ok

    def open_example(self, path: str) -> bool:
        """Open a bundled example as an untitled copy (saving asks where)."""
        gf = self._load(path)
        return gf is not None and self.open_graph_file(gf, path=None,
                                                       run_to_first_breakpoint=False)

    def _load(self, path: str):
        """The GraphFile at ``path``, or None (the reason shown) when it cannot be read."""
        from engine.files import GraphFileError, load

        try:
            return load(path)
        except GraphFileError as exc:
            self.report_open_error(path, str(exc))
        except OSError as exc:
            self.report_open_error(path, exc.strerror or str(exc))
        return None

    def report_open_error(self, path, message: str) -> None:
        w = self.window
        w.console.add("error", f"Could not open {Path(path).name}: {message}")
        w.status.showMessage(f"Could not open {Path(path).name} (the current script is kept)",
                             4000)
        self.show_banner(f"<b>Could not open {escape(Path(path).name)}</b>: "
                         f"{escape(str(message))}<br>The script you had open is unchanged.")
        w.docks["console"].raise_()

    def open_graph_file(self, gf, *, path: str | None, run_to_first_breakpoint: bool) -> bool:
        """Show ``gf`` (a GraphFile): its session, text, breakpoints and view. False if refused."""
        w = self.window
        enabled = [bp for bp in gf.breakpoints if getattr(bp, "enabled", True)]
        lines = [bp.line for bp in enabled]
        conditions = {bp.line: bp.condition for bp in enabled if bp.condition}
        settings = getattr(gf, "settings", None)
        seed = getattr(settings, "seed", 0) if settings is not None else 0
        specs = [(line, conditions.get(line)) for line in lines]
        recorded = getattr(gf, "recorded", None) is not None  # engine.record.is_recorded
        if recorded:
            # A recording has no script to run: a player replays its backward pass instead.
            loaded = w.controller.load_recorded(gf, path=path)
        else:
            loaded = w.controller.load_source(gf.script, path=path, breakpoints=specs,
                                              seed=seed, resume=getattr(gf, "state", None))
        if not loaded:
            return False
        self.graph_file = gf
        self.path = path
        self.recorded = None
        w.data_breakpoints.load(getattr(gf, "data_breakpoints", None))
        self.title = Path(path).name if path else (gf.title or UNTITLED)
        self.notes = dict(getattr(gf, "notes", None) or {})
        self.saved_notes = dict(self.notes)
        w.editor.set_source(gf.script)
        w.editor.set_breakpoints(lines, conditions)
        w.console.clear()
        w.graph_view.reset_view_state(folded=getattr(getattr(gf, "view", None), "folded", []) or [])
        w.inspector.show_nothing()
        self.hide_banner()
        if gf.description:
            w.console.add("info", f"{gf.title}: {gf.description}" if gf.title
                          else gf.description)
        w.update_title()
        if recorded:
            self._show_recorded()
        if run_to_first_breakpoint and lines:
            w.controller.continue_()
        return True

    def _show_recorded(self) -> None:
        """A graph recorded from real PyTorch: shown as it was recorded, modules folded."""
        from engine.graph import layout

        w = self.window
        graph = w.controller.session.graph()  # the replay opens at its end: all of it
        self.recorded = (graph, layout(graph))
        iterations = graph.graph.get("iterations")
        w.console.add("info", "A graph recorded from PyTorch"
                      + (f" ({counted(iterations, 'iteration')}; the last is shown)" if iterations
                         else "") + ". Its values and gradients are PyTorch's own. "
                      "F11 / F10 replay its backward node by node in PyTorch's order"
                      + (", Next Iteration moves to the next iteration" if iterations
                         else "") + ".")
        w.graph_view.show_graph(*self.recorded)
        w.graph_view.set_all_folded(True)

    # ------------------------------------------------------------------- the File menu
    def new_file(self) -> None:
        if not self.maybe_discard():
            return
        from engine.files import GraphFile

        self.open_graph_file(GraphFile(script="import torch\n\n"), path=None,
                             run_to_first_breakpoint=False)

    def text_replaced(self) -> None:
        """The user replaced the whole text (a select-all paste): a new, untitled document.

        Nothing of the old one belongs to it: not its breakpoints (the editor dropped them with
        the error marks), notes, title, description, saved state or folding, nor a banner about
        it. The new text gets a fresh session at once, so the graph and every panel are empty
        until it runs, and no run stops at the old script's breakpoints.
        """
        w = self.window
        self.graph_file = None
        self.path = None
        self.recorded = None
        self.notes = {}
        self.saved_notes = {}
        self.title = UNTITLED
        self._recovery_entry = None
        self.hide_banner()
        w.graph_view.reset_view_state()
        w.inspector.show_nothing()
        w.console.clear()
        w.reload_editor_text(announce=False)
        w.update_title()

    def _lines_moved(self, remap) -> None:
        if not self.notes:
            return
        moved = {remap(line): note for line, note in self.notes.items()}
        self.notes = {line: note for line, note in moved.items() if line is not None}

    def is_modified(self) -> bool:
        """Unsaved changes: the editor's text (its undo stack knows) or the notes."""
        return self.window.editor.document().isModified() or self.notes != self.saved_notes

    def edit_notes(self) -> None:
        """File ▸ Edit Notes…: the teaching notes, line by line (``app.notes_dialog``)."""
        from .notes_dialog import NotesDialog

        w = self.window
        dialog = NotesDialog(w.editor.toPlainText(), self.notes, w.editor.cursor_line(), w)
        w.notes_dialog = dialog  # tests drive it
        if dialog.exec():
            self.set_notes(dialog.notes())
        w.notes_dialog = None
        dialog.deleteLater()

    def set_notes(self, notes: dict[int, str]) -> None:
        self.notes = dict(notes)
        w = self.window
        w.update_title()
        self.autosave_timer.start()
        snapshot = w.controller.snapshot
        paused = snapshot.status == Status.PAUSED and snapshot.position is not None
        pause = snapshot.pause if paused else None
        # the line paused at shows its new note now
        self.show_note(snapshot.position.line if paused else None, getattr(pause, "reason", None))

    def open_file_dialog(self) -> None:
        if not self.maybe_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self.window, "Open", self._dialog_dir(),
                                              FILE_FILTER)
        if path:
            self.open_path(path)

    def show_examples(self) -> None:
        from .examples import ExamplesDialog

        dialog = ExamplesDialog(self.window)
        self.window.examples_dialog = dialog  # tests drive it
        if dialog.exec() and dialog.selected_path() and self.maybe_discard():
            self.open_example(dialog.selected_path())
        self.window.examples_dialog = None
        dialog.deleteLater()

    def save_file(self) -> bool:
        if self.path is None:
            return self.save_file_as()
        return self.save_to(self.path)

    def save_file_as(self) -> bool:
        suggested = str(Path(self._dialog_dir()) / (Path(self.path).name if self.path
                                                    else "untitled.gstep"))
        path, _ = QFileDialog.getSaveFileName(self.window, "Save As", suggested, FILE_FILTER)
        return self.save_to(path) if path else False

    def fill_recent_menu(self, menu) -> None:
        menu.clear()
        files = self.window.settings.recent_files()
        if not files:
            menu.addAction("(none)").setEnabled(False)
        for path in files:
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.maybe_discard()
                                     and self.open_path(p))

    def _dialog_dir(self) -> str:
        if self.path:
            return str(Path(self.path).parent)
        recent = self.window.settings.recent_files()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    def maybe_discard(self) -> bool:
        """Ask whether to save unsaved changes; False: the user cancelled."""
        if not self.is_modified():
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes", f"Save the changes to {self.title}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_file()
        return answer == QMessageBox.StandardButton.Discard

    # ------------------------------------------------------------------------------ saving
    def graph_file_for_save(self):
        """The GraphFile the window shows now: the opened file's fields with the editor's text,
        breakpoints, data breakpoints and folded groups."""
        from engine.files import GraphFile
        from engine.files.format import Breakpoint, ViewState

        w = self.window
        base = self.graph_file if self.graph_file is not None else GraphFile()
        fields = dict(base.__dict__)
        fields.update(script=w.editor.toPlainText(),
                      title=fields.get("title") or ("" if self.title == UNTITLED
                                                    else self.title),
                      notes=dict(self.notes),
                      breakpoints=[Breakpoint(line, w.editor.conditions.get(line))
                                   for line in sorted(w.editor.breakpoints)],
                      data_breakpoints=w.data_breakpoints.for_save(),
                      view=ViewState(folded=sorted(w.graph_view.folded_groups)))
        return GraphFile(**fields)

    def save_to(self, path: str) -> bool:
        from engine.files import GraphFileError, save, write_atomic

        w = self.window
        try:
            if Path(path).suffix.lower() == ".py":
                write_atomic(path, w.editor.toPlainText().encode("utf-8"))
            else:
                save(path, self.graph_file_for_save())
        except (GraphFileError, OSError) as exc:
            w.console.add("error", f"Could not save {Path(path).name}: {exc}")
            return False
        self.path = str(path)
        self.title = Path(path).name
        if Path(path).suffix.lower() != ".py":  # a .py file keeps no notes
            self.saved_notes = dict(self.notes)
        w.editor.document().setModified(False)
        w.settings.add_recent(str(path))
        w.status.showMessage(f"Saved {path}", 5000)
        w.update_title()
        return True

    # ---------------------------------------------------------------- autosave, recovery
    def autosave(self) -> None:
        """Keep the user's text safe in the recovery folder (engine.files.recovery)."""
        if not self.is_modified():
            return
        from engine.files import recovery

        try:
            recovery.autosave(self.graph_file_for_save(), source_path=self.path)
        except Exception as exc:
            self.window.status.showMessage(f"Autosave failed: {exc}", 5000)

    def offer_recovery(self) -> None:
        """Unsaved work left by a crash: the banner offers to open or discard it."""
        from engine.files import recovery

        try:
            found = [e for e in recovery.list_recovered() if e.error is None]
        except OSError:
            return
        if not found:
            return
        entry = found[0]
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.saved_at))
        name = Path(entry.source_path).name if entry.source_path else (entry.title or UNTITLED)
        self._recovery_entry = entry
        self.show_banner(f"Unsaved work from {when} ({escape(name)}) was recovered after "
                         f"gradstep closed unexpectedly. <a href='{BANNER_RECOVER}'>Open it</a> · "
                         f"<a href='{BANNER_DISCARD}'>Discard</a>")

    def closed_cleanly(self) -> None:
        """The window closed on purpose: nothing to recover next time."""
        from engine.files import recovery

        self.autosave_timer.stop()
        recovery.discard()

    def _banner_link(self, link: str) -> None:
        from engine.files import recovery

        entry = self._recovery_entry
        if link not in (BANNER_RECOVER, BANNER_DISCARD):
            return  # only the banner's own links act (file text is escaped: it makes none)
        if link == BANNER_RECOVER and entry is not None:
            gf = recovery.recover(entry)
            self.open_graph_file(gf, path=entry.source_path, run_to_first_breakpoint=False)
            self.window.editor.document().setModified(True)
            recovery.discard(entry.slot)
        elif link == BANNER_DISCARD and entry is not None:
            recovery.discard(entry.slot)
        self._recovery_entry = None
        self.hide_banner()

    # ------------------------------------------------------------------------------ banner
    def show_note(self, line, reason: str | None = None) -> None:
        """Why the session paused (a breakpoint, NaN/Inf, ...; not a plain step) and the file's
        note for the line paused at; running on takes them away. The note is the file's text:
        shown as plain text (escaped), never as markup or links."""
        from .status_bar import is_routine

        note = self.notes.get(line) if line is not None else None
        banner = self.window.note_banner
        parts = []
        if line is not None and not is_routine(reason):
            parts.append(f"<b>Paused at line {line}</b>: {escape(reason)}")
        if note:
            parts.append(f"<b>Note (line {line})</b>: {escape(str(note))}")
        if parts:
            self.show_banner("<br>".join(parts))
        elif banner.isVisible() and banner.text().startswith(("<b>Note", "<b>Paused")):
            self.hide_banner()

    def show_banner(self, html: str) -> None:
        """``html`` is the app's own markup: any text from a file in it must be escaped."""
        self.window.note_banner.setText(html)
        self.window.note_banner.show()

    def hide_banner(self) -> None:
        self.window.note_banner.hide()


def dropped_file(mime) -> str | None:
    """The first local file in a drop the window can open, or None."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in OPENABLE:
            return url.toLocalFile()
    return None
