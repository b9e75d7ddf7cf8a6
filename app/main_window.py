"""The debugger window: docks around the graph, a debug toolbar, menus built from the actions.

The window holds no math: it forwards the user's commands to the ``SessionController`` and
renders the snapshots and events the controller publishes.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication, QDockWidget, QFileDialog, QFrame, QLabel, QMainWindow, QMenu, QMessageBox,
    QScrollArea, QToolBar, QVBoxLayout, QWidget,
)

from . import controller as ctl
from .actions import ACTIONS, MENUS, build_actions
from .console import ConsoleEntry, ConsolePanel
from .editor import CodeEditor, EditorError
from .graph_view import GraphView
from .icons import icon
from .inspector import InspectorPanel
from .settings import WindowSettings, app_settings
from .status_bar import DebugStatusBar
from .theme import apply_theme

FILE_FILTER = "gradstep files (*.gstep *.py);;Graph files (*.gstep);;Python scripts (*.py)"
OPENABLE = (".gstep", ".py")
AUTOSAVE_DELAY_MS = 2000


class MainWindow(QMainWindow):
    """gradstep's main window. ``actions_by_id`` maps each action id to its QAction."""

    def __init__(self, settings: QSettings | None = None, *, open_demo: bool = True) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.settings = WindowSettings(settings if settings is not None else app_settings())
        self.path: str | None = None  # the file being edited (None: untitled or an example)
        self.graph_file = None  # the GraphFile it came from (keeps notes and settings on save)
        self.recorded = None  # (graph, layout) of a file recorded from real PyTorch
        self.title = "untitled"
        self.ask_before_discarding = True  # tests and the smoke test close without asking
        self.data_breakpoints: dict[str, bool] = {}
        self.first_painted_at: float | None = None
        self._shut_down = False

        self.controller = ctl.SessionController(self)
        self.editor = CodeEditor(self)
        self.graph_view = GraphView(self)
        self.inspector = InspectorPanel(self)
        self.console = ConsolePanel(self)
        self.status = DebugStatusBar(self)
        self.setStatusBar(self.status)
        self.note_banner = QLabel(self)
        self.note_banner.setObjectName("noteBanner")
        self.note_banner.setWordWrap(True)
        self.note_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.note_banner.linkActivated.connect(self._banner_link)
        self.note_banner.hide()

        self.setCentralWidget(self.graph_view)
        # The left column (the code and the Build palette that writes it) runs the window's full
        # height; the console spans the graph and the panels beside it.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.docks: dict[str, QDockWidget] = {}
        editor_host = QWidget(self)
        editor_layout = QVBoxLayout(editor_host)
        editor_layout.setContentsMargins(0, 0, 0, 0)
        editor_layout.setSpacing(2)
        editor_layout.addWidget(self.note_banner)
        editor_layout.addWidget(self.editor, 1)
        self._dock("editor", "Editor", editor_host, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("inspector", "Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("console", "Console", self.console, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.panels: dict[str, QWidget] = {}

        from .builder.host import BuilderHost

        self.builder = BuilderHost(self)
        self.actions_by_id = build_actions(self)
        self._build_menus()
        self._build_toolbar()
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self._autosave_timer.timeout.connect(self.autosave)
        self._connect()

        self.resize(1440, 900)
        self._arrange_default()
        self._restore_layout()
        dark = self.settings.dark_theme()
        self.actions_by_id["view.dark_theme"].setChecked(dark)
        if not dark:
            self._apply_theme(False)
        self._update_title()
        self._update_actions()
        self.status.show_snapshot(self.controller.snapshot)
        # The demo and the panels load just after the window's first paint: the engine's session
        # machinery and pyqtgraph take a moment to import, and the window should not wait.
        self._open_demo_after_paint = open_demo
        self._offer_recovery()

    # ---------------------------------------------------------------------------- building
    def _dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{key}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        self.docks[key] = dock
        return dock

    def ensure_panels(self) -> None:
        """Dock the live panels of issue 6 (gradient buffers, optimizer, training, timeline).

        Called once, just after the window first shows: they import pyqtgraph, which would
        otherwise cost the cold start a third of its time.
        """
        if self.panels or self._shut_down:
            return
        self.builder.ensure_panel()
        from .panels.buffers import GradientBufferPanel
        from .panels.optimizer import OptimizerPanel
        from .panels.predict import PredictPanel
        from .panels.timeline import TimelinePanel
        from .panels.training import TrainingPlotsPanel

        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        specs = [("buffers", "Gradient Buffers", GradientBufferPanel, right),
                 ("optimizer", "Optimizer", OptimizerPanel, right),
                 ("training", "Training", TrainingPlotsPanel, bottom),
                 ("timeline", "Timeline", TimelinePanel, bottom),
                 ("predict", "Predict", PredictPanel, right)]
        for key, title, cls, area in specs:
            panel = cls(self.controller, self)
            self.panels[key] = panel
            # In a scroll area: a panel's minimum size (a plot wants 400 px) must not decide
            # how small the user may make its dock, nor push the graph off the screen.
            holder = QScrollArea(self)
            holder.setObjectName(f"{key}Scroll")
            holder.setWidgetResizable(True)
            holder.setFrameShape(QFrame.Shape.NoFrame)
            holder.setWidget(panel)
            self._dock(key, title, holder, area)
            self.panels_menu.addAction(self._panel_toggle(key))
        self._tabify_panels()
        # A panel's click reaches select_tensor once, through controller.select_tensor (its
        # tensor_selected signal is for other listeners): connecting both selected twice.
        # The saved layout names these docks too: put them back where the user left them.
        if self._saved_state is not None:
            self.restoreState(self._saved_state)
        else:
            self._size_docks()

    def _build_menus(self) -> None:
        bar = self.menuBar()
        menus = {name: bar.addMenu(f"&{name}") for name in MENUS}
        self.menus = menus
        for spec in ACTIONS:
            if spec.id == "file.quit":
                self.recent_menu = QMenu("Open &Recent", self)
                self.recent_menu.setObjectName("recentMenu")
                self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
                menus["File"].addMenu(self.recent_menu)
                menus["File"].addSeparator()
            if spec.id in ("debug.toggle_breakpoint", "debug.stop", "view.dark_theme",
                           "edit.find_node", "debug.break_on_nan", "build.add_optimizer",
                           "build.rerun_on_edit"):
                menus[spec.menu].addSeparator()
            menus[spec.menu].addAction(self.actions_by_id[spec.id])
            if spec.scope == "graph":
                self.graph_view.canvas.addAction(self.actions_by_id[spec.id])
        self.panels_menu = menus["View"].addMenu("&Panels")
        for key in self.docks:
            self.panels_menu.addAction(self._panel_toggle(key))
        # Keyboard: jump to each main part of the window.
        for number, (key, target) in enumerate((("editor", self.editor),
                                                ("graph", self.graph_view.canvas),
                                                ("inspector", self.inspector.text),
                                                ("console", self.console.view)), start=1):
            jump = QAction(f"Focus {key.title()}", self)
            jump.setObjectName(f"view.focus_{key}")
            jump.setShortcut(QKeySequence(f"Ctrl+{number}"))
            jump.triggered.connect(lambda _c=False, k=key, t=target: self._focus(k, t))
            menus["View"].addAction(jump)
            self.actions_by_id[f"view.focus_{key}"] = jump

    _DEFAULT_AREAS = {"editor": Qt.DockWidgetArea.LeftDockWidgetArea,
                      "build": Qt.DockWidgetArea.LeftDockWidgetArea,
                      "inspector": Qt.DockWidgetArea.RightDockWidgetArea,
                      "console": Qt.DockWidgetArea.BottomDockWidgetArea,
                      "buffers": Qt.DockWidgetArea.RightDockWidgetArea,
                      "optimizer": Qt.DockWidgetArea.RightDockWidgetArea,
                      "training": Qt.DockWidgetArea.BottomDockWidgetArea,
                      "timeline": Qt.DockWidgetArea.BottomDockWidgetArea,
                      "predict": Qt.DockWidgetArea.RightDockWidgetArea}

    def _arrange_default(self) -> None:
        """Editor left, graph in the middle, inspector and panels right, console below."""
        for key, dock in self.docks.items():
            dock.setFloating(False)
            self.addDockWidget(self._DEFAULT_AREAS.get(key, Qt.DockWidgetArea.RightDockWidgetArea),
                               dock)
            dock.show()
        if "build" in self.docks:  # the palette sits under the code it writes
            self.splitDockWidget(self.docks["editor"], self.docks["build"],
                                 Qt.Orientation.Vertical)
        self._tabify_panels()
        self._size_docks()

    def _size_docks(self) -> None:
        # The graph gets the most room; the console a strip below it.
        width, height = max(self.width(), 1000), max(self.height(), 700)
        self.resizeDocks([self.docks["editor"], self.docks["inspector"]],
                         [int(width * 0.3), int(width * 0.27)], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["console"]], [int(height * 0.24)], Qt.Orientation.Vertical)
        if "build" in self.docks:
            self.resizeDocks([self.docks["editor"], self.docks["build"]],
                             [int(height * 0.4), int(height * 0.6)], Qt.Orientation.Vertical)

    def _tabify_panels(self) -> None:
        d = self.docks
        for first, second in (("inspector", "buffers"), ("buffers", "optimizer"),
                              ("optimizer", "predict"), ("console", "training"),
                              ("training", "timeline")):
            if first in d and second in d:
                self.tabifyDockWidget(d[first], d[second])
        d["inspector"].raise_()
        d["console"].raise_()

    def _panel_toggle(self, key: str) -> QAction:
        toggle = self.docks[key].toggleViewAction()
        toggle.setObjectName(f"view.panel.{key}")
        return toggle

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Debug", self)
        toolbar.setObjectName("debugToolbar")
        toolbar.setMovable(True)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        for spec in ACTIONS:
            if spec.id.startswith("file.") and spec.icon and spec.id != "file.examples":
                toolbar.addAction(self.actions_by_id[spec.id])
        toolbar.addSeparator()
        for spec in ACTIONS:
            if spec.toolbar:
                toolbar.addAction(self.actions_by_id[spec.id])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    def _connect(self) -> None:
        c = self.controller
        c.state_changed.connect(self._on_state)
        c.events_arrived.connect(self._on_events)
        c.load_failed.connect(self._on_load_failed)
        c.command_failed.connect(self._on_command_failed)
        c.busy_changed.connect(lambda _busy: self._update_actions())
        c.tensor_selection_requested.connect(self.select_tensor)
        c.session_replaced.connect(self._apply_data_breakpoints)
        self.editor.breakpoint_toggled.connect(self._breakpoint_toggled)
        self.editor.condition_changed.connect(self._condition_changed)
        self.editor.document().modificationChanged.connect(lambda _m: self._update_title())
        self.editor.textChanged.connect(self._autosave_timer.start)
        self.graph_view.node_selected.connect(self._node_selected)
        self.graph_view.canvas.context_menu_requested.connect(self.builder.context_menu)
        self.console.line_activated.connect(lambda line: self.editor.go_to_line(line))

    # ------------------------------------------------------------------------------ files
    def open_demo(self) -> None:
        """The seed demo, paused before backward(): the first thing a new user sees teaches."""
        from .demo import demo_graph_file

        if self._shut_down or self.controller.session is not None:
            return
        self._open_graph_file(demo_graph_file(), path=None, run_to_first_breakpoint=True)

    def open_path(self, path: str) -> bool:
        """Open a .gstep or .py file; on failure the current session stays and the error shows."""
        from engine.files import GraphFileError, load

        try:
            gf = load(path)
        except GraphFileError as exc:
            self._report_open_error(path, str(exc))
            return False
        except OSError as exc:
            self._report_open_error(path, exc.strerror or str(exc))
            return False
        ok = self._open_graph_file(gf, path=str(path), run_to_first_breakpoint=False)
        if ok:
            self.settings.add_recent(str(path))
        return ok

    def _report_open_error(self, path, message: str) -> None:
        self.console.add("error", f"Could not open {Path(path).name}: {message}")
        self.status.showMessage(f"Could not open {Path(path).name} (the current script is kept)",
                                4000)
        self._show_banner(f"<b>Could not open {Path(path).name}</b>: {message}<br>"
                          "The script you had open is unchanged.")
        self.docks["console"].raise_()

    def _open_graph_file(self, gf, *, path: str | None, run_to_first_breakpoint: bool) -> bool:
        enabled = [bp for bp in gf.breakpoints if getattr(bp, "enabled", True)]
        lines = [bp.line for bp in enabled]
        conditions = {bp.line: bp.condition for bp in enabled if bp.condition}
        settings = getattr(gf, "settings", None)
        seed = getattr(settings, "seed", 0) if settings is not None else 0
        specs = [(line, conditions.get(line)) for line in lines]
        recorded = getattr(gf, "recorded", None) is not None  # engine.record.is_recorded
        if recorded:
            # A recording has no script to run: a player replays its backward pass instead.
            loaded = self.controller.load_recorded(gf, path=path)
        else:
            loaded = self.controller.load_source(gf.script, path=path, breakpoints=specs,
                                                 seed=seed, resume=getattr(gf, "state", None))
        if not loaded:
            return False
        self.graph_file = gf
        self.path = path
        self.recorded = None
        self._load_data_breakpoints(getattr(gf, "data_breakpoints", None))
        self.title = Path(path).name if path else (gf.title or "untitled")
        self.editor.set_source(gf.script)
        self.editor.set_breakpoints(lines, conditions)
        self.console.clear()
        self.graph_view.folded_groups = set(getattr(getattr(gf, "view", None), "folded", []) or [])
        self.graph_view.canvas.user_moved = False
        self.inspector.show_nothing()
        self._hide_banner()
        if gf.description:
            self.console.add("info", f"{gf.title}: {gf.description}" if gf.title
                             else gf.description)
        self._update_title()
        if recorded:
            self._show_recorded()
        if run_to_first_breakpoint and lines:
            self.controller.continue_()
        return True

    def _show_recorded(self) -> None:
        """A graph recorded from real PyTorch: shown as it was recorded, modules folded."""
        from engine.graph import layout

        graph = self.controller.session.graph()  # the replay opens at its end: all of it
        self.recorded = (graph, layout(graph))
        iterations = graph.graph.get("iterations")
        self.console.add("info", "A graph recorded from PyTorch"
                         + (f" ({iterations} iterations; the last is shown)" if iterations
                            else "") + ". Its values and gradients are PyTorch's own. "
                         "F11 / F10 replay its backward node by node in PyTorch's order"
                         + (", Next Iteration moves to the next iteration" if iterations
                            else "") + ".")
        self.graph_view.show_graph(*self.recorded)
        self.graph_view.set_all_folded(True)

    def _graph_file_for_save(self):
        from engine.files import GraphFile
        from engine.files.format import Breakpoint, ViewState

        base = self.graph_file if self.graph_file is not None else GraphFile()
        view = ViewState(folded=sorted(self.graph_view.folded_groups))
        fields = dict(base.__dict__)
        fields.update(script=self.editor.toPlainText(),
                      title=fields.get("title") or self.title,
                      breakpoints=[Breakpoint(line, self.editor.conditions.get(line))
                                   for line in sorted(self.editor.breakpoints)],
                      data_breakpoints=self._data_breakpoints_for_save(
                          fields.get("data_breakpoints")),
                      view=view)
        return GraphFile(**fields)

    def save_to(self, path: str) -> bool:
        from engine.files import GraphFileError, save, write_atomic

        try:
            if Path(path).suffix.lower() == ".py":
                write_atomic(path, self.editor.toPlainText().encode("utf-8"))
            else:
                save(path, self._graph_file_for_save())
        except (GraphFileError, OSError) as exc:
            self.console.add("error", f"Could not save {Path(path).name}: {exc}")
            return False
        self.path = str(path)
        self.title = Path(path).name
        self.editor.document().setModified(False)
        self.settings.add_recent(str(path))
        self.status.showMessage(f"Saved {path}", 5000)
        self._update_title()
        return True

    def autosave(self) -> None:
        """Keep the user's text safe in the recovery folder (engine.files.recovery)."""
        if not self.editor.document().isModified():
            return
        from engine.files import recovery

        try:
            recovery.autosave(self._graph_file_for_save(), source_path=self.path)
        except Exception as exc:  # noqa: BLE001 - autosave must never interrupt typing
            self.status.showMessage(f"Autosave failed: {exc}", 5000)

    def _offer_recovery(self) -> None:
        from engine.files import recovery

        try:
            found = [e for e in recovery.list_recovered() if e.error is None]
        except OSError:
            return
        if not found:
            return
        entry = found[0]
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.saved_at))
        name = Path(entry.source_path).name if entry.source_path else (entry.title or "untitled")
        self._recovery_entry = entry
        self._show_banner(f"Unsaved work from {when} ({name}) was recovered after gradstep "
                          "closed unexpectedly. <a href='recover'>Open it</a> · "
                          "<a href='discard'>Discard</a>")

    def _banner_link(self, link: str) -> None:
        from engine.files import recovery

        entry = getattr(self, "_recovery_entry", None)
        if link == "recover" and entry is not None:
            gf = recovery.recover(entry)
            self._open_graph_file(gf, path=entry.source_path, run_to_first_breakpoint=False)
            self.editor.document().setModified(True)
            recovery.discard(entry.slot)
        elif link == "discard" and entry is not None:
            recovery.discard(entry.slot)
        self._recovery_entry = None
        self._hide_banner()

    def _show_banner(self, html: str) -> None:
        self.note_banner.setText(html)
        self.note_banner.show()

    def _hide_banner(self) -> None:
        self.note_banner.hide()

    # --------------------------------------------------------------------------- handlers
    def new_file(self) -> None:
        if not self._maybe_discard():
            return
        from engine.files import GraphFile

        self._open_graph_file(GraphFile(script="import torch\n\n", title="untitled"), path=None,
                              run_to_first_breakpoint=False)

    def open_file_dialog(self) -> None:
        if not self._maybe_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open", self._dialog_dir(), FILE_FILTER)
        if path:
            self.open_path(path)

    def show_examples(self) -> None:
        from .examples import ExamplesDialog

        dialog = ExamplesDialog(self)
        self.examples_dialog = dialog  # tests drive it
        if dialog.exec() and dialog.selected_path() and self._maybe_discard():
            self.open_example(dialog.selected_path())
        self.examples_dialog = None
        dialog.deleteLater()

    def open_example(self, path: str) -> bool:
        """Open a bundled example as an untitled copy (saving asks where)."""
        from engine.files import GraphFileError, load

        try:
            gf = load(path)
        except GraphFileError as exc:
            self._report_open_error(path, str(exc))
            return False
        return self._open_graph_file(gf, path=None, run_to_first_breakpoint=False)

    def save_file(self) -> bool:
        if self.path is None:
            return self.save_file_as()
        return self.save_to(self.path)

    def save_file_as(self) -> bool:
        suggested = str(Path(self._dialog_dir()) / (Path(self.path).name if self.path
                                                    else "untitled.gstep"))
        path, _ = QFileDialog.getSaveFileName(self, "Save As", suggested, FILE_FILTER)
        return self.save_to(path) if path else False

    def undo(self) -> None:
        self.editor.undo()

    def redo(self) -> None:
        self.editor.redo()

    # Building by pointing (app/builder/host.py): every gesture writes its line.
    def build_new_tensor(self) -> None:
        self.builder.new_tensor()

    def build_new_layer(self) -> None:
        self.builder.new_layer()

    def build_apply_op(self) -> None:
        self.builder.show_palette()

    def build_add_optimizer(self) -> None:
        self.builder.add_optimizer()

    def build_training_loop(self) -> None:
        self.builder.training_loop()

    def build_rerun_on_edit(self, on: bool) -> None:
        self.builder.rerun_on_edit = on

    def focus_graph_search(self) -> None:
        self.graph_view.search.setFocus()
        self.graph_view.search.selectAll()

    def debug_continue(self) -> None:
        self._run_command(self.controller.continue_)

    def debug_step_over(self) -> None:
        self._run_command(self.controller.step_over)

    def debug_step_into(self) -> None:
        self._run_command(self.controller.step_into)

    def debug_step_out(self) -> None:
        self._run_command(self.controller.step_out)

    def debug_next_iteration(self) -> None:
        self._run_command(self.controller.next_iteration)

    def debug_run_to_cursor(self) -> None:
        line = self.editor.cursor_line()
        self._run_command(lambda: self.controller.run_to_line(line))

    def debug_run_to_end(self) -> None:
        self._run_command(self.controller.run_to_end)

    def debug_pause(self) -> None:
        self.controller.pause()

    def debug_stop(self) -> None:
        self.controller.stop()
        self.status.showMessage("Stopping…", 2000)

    def debug_restart(self) -> None:
        if self._source_changed():
            self._reload_editor_text()
        self.controller.restart()

    def toggle_breakpoint(self) -> None:
        self.editor.toggle_breakpoint(self.editor.cursor_line())

    # Data breakpoints: kept here too, so a new session (an opened file) gets them again.
    def break_on_nan(self, on: bool) -> None:
        self._set_data_breakpoint("break_on_nan", on)

    def break_on_backward(self, on: bool) -> None:
        self._set_data_breakpoint("break_on_backward", on)

    def break_on_zero_grad(self, on: bool) -> None:
        self._set_data_breakpoint("break_on_zero_grad", on)

    def break_on_step(self, on: bool) -> None:
        self._set_data_breakpoint("break_on_step", on)

    def _set_data_breakpoint(self, name: str, on: bool) -> None:
        self.data_breakpoints[name] = on
        session = self.controller.session
        if session is not None:
            getattr(session, name)(on)  # plain flags in the session: safe while it runs

    _DATA_BREAKPOINT_FIELDS = (("nan", "break_on_nan"), ("on_backward", "break_on_backward"),
                               ("on_zero_grad", "break_on_zero_grad"),
                               ("on_step", "break_on_step"))

    def _load_data_breakpoints(self, saved) -> None:
        """A file's data breakpoints become the Debug menu's checks (and the session's)."""
        for field, name in self._DATA_BREAKPOINT_FIELDS:
            on = bool(getattr(saved, field, False)) if saved is not None else False
            action = self.actions_by_id[f"debug.{name}"]
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
            self._set_data_breakpoint(name, on)
        norm = getattr(saved, "grad_norm", None) if saved is not None else None
        if norm is not None and self.controller.session is not None:
            self.controller.session.break_on_grad_norm(norm)

    def _data_breakpoints_for_save(self, base):
        from engine.files import DataBreakpoints

        values = {field: bool(self.data_breakpoints.get(name, False))
                  for field, name in self._DATA_BREAKPOINT_FIELDS}
        return DataBreakpoints(grad_norm=getattr(base, "grad_norm", None), **values)

    def _apply_data_breakpoints(self, session) -> None:
        for name, on in self.data_breakpoints.items():
            getattr(session, name)(on)

    def fit_graph(self) -> None:
        self.graph_view.canvas.fit_all()

    def zoom_in(self) -> None:
        self.graph_view.canvas.user_moved = True
        self.graph_view.canvas.zoom_by(1.25)

    def zoom_out(self) -> None:
        self.graph_view.canvas.user_moved = True
        self.graph_view.canvas.zoom_by(1 / 1.25)

    def fold_all_groups(self) -> None:
        self.graph_view.set_all_folded(True)

    def unfold_all_groups(self) -> None:
        self.graph_view.set_all_folded(False)

    def toggle_dark_theme(self, dark: bool) -> None:
        self.settings.set_dark_theme(dark)
        self._apply_theme(dark)

    def reset_layout(self) -> None:
        self.ensure_panels()
        self._arrange_default()

    def show_about(self) -> None:
        QMessageBox.about(self, "About gradstep",
                          "<b>gradstep</b> — a debugger for autograd.<br>Step through "
                          "backward(), zero_grad() and optimizer.step() and watch every "
                          "gradient buffer change.")

    def select_tensor(self, name: str) -> None:
        """Select the tensor the script calls ``name`` in the graph (and so the inspector)."""
        node_id = f"t:{name}"
        if self.graph_view.select(node_id):
            self.docks["inspector"].raise_()

    # ----------------------------------------------------------------------- command flow
    def _source_changed(self) -> bool:
        return self.editor.toPlainText() != self.controller.source

    def _reload_editor_text(self, *, announce: bool = True) -> bool:
        """The user edited the script: the next command runs the new text from the top."""
        seed = getattr(getattr(self.graph_file, "settings", None), "seed", 0)
        self.editor.set_errors([])
        if announce:
            self.console.add("info",
                             "— the script changed: starting over with the editor's text —")
        specs = [(line, self.editor.conditions.get(line))
                 for line in sorted(self.editor.breakpoints)]
        return self.controller.load_source(self.editor.toPlainText(), path=self.path,
                                           breakpoints=specs, seed=seed or 0)

    def _run_command(self, command) -> None:
        if self._source_changed():
            if not self._reload_editor_text():
                return
        elif self.controller.snapshot.status in (ctl.FINISHED, ctl.FAILED) \
                and not self.controller.busy:
            # Like a debugger's F5 after the program ended: start a new run.
            self.editor.set_errors([])
            self.console.add("info", "— starting over —")
            self.controller.restart()
            if command == self.controller.step_into or command == self.controller.step_over:
                return  # restart already paused before the first statement
        command()

    def _breakpoint_toggled(self, line: int, on: bool) -> None:
        if on:
            self.controller.set_breakpoint(line)
        else:
            self.controller.clear_breakpoint(line)

    def _condition_changed(self, line: int, condition: str) -> None:
        from engine.session import ConditionError

        try:
            self.controller.set_breakpoint(line, condition or None)
        except ConditionError as exc:
            self.console.add("error", f"Breakpoint condition not accepted: {exc}", line)
            if condition:
                self.editor.set_condition(line, "")

    def _maybe_discard(self) -> bool:
        if not self.editor.document().isModified():
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", f"Save the changes to {self.title}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_file()
        return answer == QMessageBox.StandardButton.Discard

    # --------------------------------------------------------------------- session output
    def _on_state(self, snapshot) -> None:
        self.status.show_snapshot(snapshot)
        position = snapshot.position if snapshot.status == ctl.PAUSED else None
        self.editor.set_current_line(getattr(position, "line", None))
        executing = None
        graph = snapshot.graph
        if self.recorded is not None and (graph is None or graph.number_of_nodes() == 0):
            # A recorded file shows its recorded graph until its script builds one.
            self.status.show_snapshot(snapshot)
            self.builder.refresh()
            self._update_actions()
            return
        if graph is not None and position is not None and position.backward_step:
            executing = _last_executed(graph)
        self.graph_view.show_graph(graph, snapshot.layout, executing=executing)
        if self.inspector.node_id and graph is not None:
            self.inspector.show_node(self.graph_view.shown_graph, self.inspector.node_id)
        # A note belongs to the line paused at: running on (or to the end) takes it away.
        self._show_note(position.line if position is not None else None)
        self.builder.refresh()
        self._update_actions()

    def _on_events(self, events) -> None:
        entries: list[ConsoleEntry] = []
        for event in events:
            kind = event.kind
            if kind == "output":
                entries.append(ConsoleEntry("output", event.get("text", ""), event.get("line")))
            elif kind == "warning":
                warning = event.get("warning")
                message = getattr(warning, "message", str(warning))
                entries.append(ConsoleEntry("warning", message, event.get("line")))
            elif kind == "error":
                entries.extend(self._error_entries(event))
            elif kind == "finished" and not event.get("travelled"):
                entries.append(ConsoleEntry(
                    "info", "Stopped." if event.get("stopped") else "Script finished."))
            elif kind == "reset":
                self.editor.set_errors([])
        if entries:
            self.console.add_many(entries)

    def _error_entries(self, event) -> list[ConsoleEntry]:
        error = event.get("error")
        explanation = event.get("explanation")
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
        self.docks["console"].raise_()
        return entries

    def _show_note(self, line) -> None:
        notes = getattr(self.graph_file, "notes", None) or {}
        note = notes.get(line) if line is not None else None
        if note:
            self._show_banner(f"<b>Note (line {line})</b>: {note}")
        elif self.note_banner.isVisible() and self.note_banner.text().startswith("<b>Note"):
            self._hide_banner()

    def _on_load_failed(self, path: str, exc) -> None:
        self._report_open_error(path, str(exc))

    def _on_command_failed(self, name: str, exc) -> None:
        self.console.add("error", f"{name} failed: {type(exc).__name__}: {exc}")

    def _node_selected(self, node_id: str) -> None:
        self.inspector.show_node(self.graph_view.shown_graph, node_id)
        if node_id:
            self.docks["inspector"].raise_()

    # ---------------------------------------------------------------------------- chrome
    def _update_actions(self) -> None:
        status = self.controller.snapshot.status
        busy = status == ctl.RUNNING  # commands queue, so only a running script disables them
        a = self.actions_by_id
        for key in ("debug.continue", "debug.step_over", "debug.step_into", "debug.step_out",
                    "debug.next_iteration", "debug.run_to_line"):
            a[key].setEnabled(not busy)
        a["debug.stop"].setEnabled(busy or status == ctl.PAUSED)
        a["debug.pause"].setEnabled(busy)
        a["debug.run_to_end"].setEnabled(not busy)
        can_build = self.builder.blocked_reason() is None
        for key in ("build.new_tensor", "build.new_layer", "build.apply_op",
                    "build.add_optimizer", "build.training_loop"):
            a[key].setEnabled(can_build)

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.title}[*] — gradstep")
        self.setWindowModified(self.editor.document().isModified())

    def _apply_theme(self, dark: bool) -> None:
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, dark)
        self.editor.set_dark(dark)
        self.graph_view.set_dark(dark)
        self.inspector.matrix.refresh_theme()

    def _focus(self, key: str, widget: QWidget) -> None:
        dock = self.docks.get(key)
        if dock is not None:
            dock.show()
            dock.raise_()
        widget.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        if not files:
            self.recent_menu.addAction("(none)").setEnabled(False)
        for path in files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self._maybe_discard()
                                     and self.open_path(p))

    def _dialog_dir(self) -> str:
        if self.path:
            return str(Path(self.path).parent)
        recent = self.settings.recent_files()
        return str(Path(recent[0]).parent) if recent else str(Path.home())

    def _restore_layout(self) -> None:
        geometry, state = self.settings.window_state()
        self._saved_state = state
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        if self.first_painted_at is None:
            self.first_painted_at = time.perf_counter()  # the cold start's finish line
            QTimer.singleShot(0, self._after_first_paint)

    def _after_first_paint(self) -> None:
        if self._open_demo_after_paint:
            self._open_demo_after_paint = False
            self.open_demo()
        self.ensure_panels()

    # ---------------------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if _dropped_file(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        path = _dropped_file(event.mimeData())
        if path is not None and self._maybe_discard():
            event.acceptProposedAction()
            self.open_path(path)

    # ----------------------------------------------------------------------------- closing
    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.ask_before_discarding and not self._maybe_discard():
            event.ignore()
            return
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.shutdown()
        from engine.files import recovery

        recovery.discard()  # a clean close: nothing to recover next time
        event.accept()

    def shutdown(self) -> None:
        """Stop the worker and delete pyqtgraph widgets now (one alive at exit can crash)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._autosave_timer.stop()
        self.controller.shutdown()
        self.inspector.dispose()
        for panel in self.panels.values():
            dispose = getattr(panel, "dispose", None) or getattr(panel, "shutdown", None)
            if callable(dispose):
                dispose()
            panel.setParent(None)
            panel.deleteLater()
        self.panels.clear()


def _last_executed(graph) -> str | None:
    """The node that ran in the latest backward step (the largest executed_index)."""
    best, best_index = None, -1
    for node_id, attrs in graph.nodes(data=True):
        index = attrs.get("executed_index")
        if index is not None and index > best_index:
            best, best_index = node_id, index
    return best


def _dropped_file(mime) -> str | None:
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in OPENABLE:
            return url.toLocalFile()
    return None
