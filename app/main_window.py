"""The debugger window: docks around the graph, a debug toolbar, menus built from the actions.

The window holds no math: it forwards the user's commands to the ``SessionController`` and
renders the snapshots and events the controller publishes. It assembles parts that each do one
job: ``Documents`` (open, save, autosave, recovery), ``ConsoleFeed`` (events into the console),
``DataBreakpointSwitches`` (the Debug menu's data breakpoints), ``BuilderHost`` (building by
pointing) and the action table (``app.actions``).

What the builder may use of the window (``app.builder.host.BuilderWindow``): ``editor``,
``controller``, ``graph_view``, ``console``, ``status``, ``docks``, ``add_dock``,
``reload_editor_text`` and ``show_in_inspector``.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engine.graph.focus import last_executed
from engine.session.events import Status

from . import controller as ctl
from . import docks as dock_layout
from .actions import build_actions, build_menus, build_toolbar
from .console import ConsolePanel
from .console_feed import ConsoleFeed
from .data_breakpoints import DataBreakpointSwitches
from .documents import Documents, dropped_file
from .editor import CodeEditor
from .fault_focus import FaultFocus
from .graph_view import GraphView
from .icons import icon
from .inspector import InspectorPanel
from .settings import WindowSettings, app_settings
from .status_bar import DebugStatusBar
from .stop_report import StopReport
from .theme import apply_theme


class MainWindow(QMainWindow):
    """gradstep's main window. ``actions_by_id`` maps each action id to its QAction."""

    def __init__(self, settings: QSettings | None = None, *, open_demo: bool = True) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.settings = WindowSettings(settings if settings is not None else app_settings())
        self.ask_before_discarding = True  # tests and the smoke test close without asking
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
        self.add_dock("editor", "Editor", editor_host, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.add_dock("inspector", "Inspector", self.inspector,
                      Qt.DockWidgetArea.RightDockWidgetArea)
        self.add_dock("console", "Console", self.console, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.panels: dict[str, QWidget] = {}

        from .builder.host import BuilderHost

        self.builder = BuilderHost(self)
        self.documents = Documents(self)
        self.actions_by_id = build_actions(self)
        self.data_breakpoints = DataBreakpointSwitches(self.controller, self.actions_by_id)
        self.console_feed = ConsoleFeed(self.controller, self.console, self.editor,
                                        self.docks["console"].raise_)
        self.stop_report = StopReport(self.controller, self.console, self.status)
        self.fault_focus = FaultFocus(self)
        self.menus, self.recent_menu, self.panels_menu = build_menus(self)
        self.toolbar = build_toolbar(self)
        self._connect()

        self.resize(1440, 900)
        dock_layout.arrange_default(self, self.docks)
        self._restore_layout()
        dark = self.settings.dark_theme()
        self.actions_by_id["view.dark_theme"].setChecked(dark)
        if not dark:
            self._apply_theme(False)
        self.update_title()
        self._update_actions()
        self.status.show_snapshot(self.controller.snapshot)
        # The demo and the panels load just after the window's first paint: the engine's session
        # machinery and pyqtgraph take a moment to import, and the window should not wait.
        self._open_demo_after_paint = open_demo
        self.documents.offer_recovery()

    # ---------------------------------------------------------------------------- building
    def add_dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        """Dock ``widget`` as ``docks[key]`` (movable, floatable, closable)."""
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
        from .panels.plots import PlotsPanel
        from .panels.predict import PredictPanel
        from .panels.timeline import TimelinePanel
        from .panels.training import TrainingPlotsPanel

        right = Qt.DockWidgetArea.RightDockWidgetArea
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        specs = [("buffers", "Gradient Buffers", GradientBufferPanel, right),
                 ("optimizer", "Optimizer", OptimizerPanel, right),
                 ("training", "Training", TrainingPlotsPanel, bottom),
                 ("plots", "Plots", PlotsPanel, bottom),
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
            self.add_dock(key, title, holder, area)
            self.panels_menu.addAction(dock_layout.panel_toggle(self.docks, key))
        dock_layout.tabify_panels(self, self.docks)
        # A panel's click reaches select_tensor once, through controller.select_tensor (its
        # tensor_selected signal is for other listeners): connecting both selected twice.
        # The saved layout names these docks too: put them back where the user left them.
        if self._saved_state is not None:
            self.restoreState(self._saved_state)
        else:
            dock_layout.size_docks(self, self.docks)

    def _connect(self) -> None:
        c = self.controller
        c.state_changed.connect(self._on_state)
        c.load_failed.connect(lambda path, exc: self.documents.report_open_error(path, str(exc)))
        c.command_failed.connect(lambda name, exc: self.console.add(
            "error", f"{name} failed: {type(exc).__name__}: {exc}"))
        c.busy_changed.connect(lambda busy: (self.status.show_busy(busy, c.snapshot),
                                             self._update_actions()))
        c.tensor_selection_requested.connect(self.select_tensor)
        self.editor.breakpoint_toggled.connect(
            lambda line, on: c.set_breakpoint(line) if on else c.clear_breakpoint(line))
        self.editor.condition_changed.connect(self._condition_changed)
        self.editor.document().modificationChanged.connect(lambda _m: self.update_title())
        self.graph_view.node_selected.connect(self.show_in_inspector)
        self.graph_view.canvas.context_menu_requested.connect(self.builder.context_menu)
        self.console.line_activated.connect(lambda line: self.editor.go_to_line(line))

    # ----------------------------------------------------------------------- public parts
    def open_path(self, path: str) -> bool:
        """Open a .gstep or .py file (``Documents.open_path``)."""
        return self.documents.open_path(path)

    def open_example(self, path: str) -> bool:
        """Open a bundled example as an untitled copy (``Documents.open_example``)."""
        return self.documents.open_example(path)

    def select_tensor(self, name: str) -> None:
        """Select the tensor the script calls ``name`` in the graph (and so the inspector)."""
        if self.graph_view.select(f"t:{name}"):
            self.docks["inspector"].raise_()

    def show_in_inspector(self, node_id: str) -> None:
        """Show graph node ``node_id`` in the inspector (and raise it)."""
        self.inspector.show_node(self.graph_view.shown_graph, node_id)
        if node_id:
            self.docks["inspector"].raise_()

    def set_dark_theme(self, dark: bool) -> None:
        self.settings.set_dark_theme(dark)
        self._apply_theme(dark)

    def reset_layout(self) -> None:
        self.ensure_panels()
        dock_layout.arrange_default(self, self.docks)

    # ----------------------------------------------------------------------- command flow
    def source_changed(self) -> bool:
        """The editor's text is not the script the session runs."""
        return self.editor.toPlainText() != self.controller.source

    def reload_editor_text(self, *, announce: bool = True) -> bool:
        """The user edited the script: the next command runs the new text from the top."""
        self.editor.set_errors([])
        if announce:
            self.console.add("info",
                             "— the script changed: starting over with the editor's text —")
        specs = [(line, self.editor.conditions.get(line))
                 for line in sorted(self.editor.breakpoints)]
        return self.controller.load_source(self.editor.toPlainText(), path=self.documents.path,
                                           breakpoints=specs, seed=self.documents.seed)

    def run_command(self, command) -> None:
        """Run a debugger command, re-running an edited (or ended) script first."""
        if self.source_changed():
            if not self.reload_editor_text():
                return
        elif self.controller.snapshot.status in (Status.FINISHED, Status.FAILED) \
                and not self.controller.busy:
            # Like a debugger's F5 after the program ended: start a new run.
            self.editor.set_errors([])
            self.console.add("info", "— starting over —")
            self.controller.restart()
            if command == self.controller.step_into or command == self.controller.step_over:
                return  # restart already paused before the first statement
        command()

    def _condition_changed(self, line: int, condition: str) -> None:
        from engine.session import ConditionError

        try:
            self.controller.set_breakpoint(line, condition or None)
        except ConditionError as exc:
            self.console.add("error", f"Breakpoint condition not accepted: {exc}", line)
            if condition:
                self.editor.set_condition(line, "")

    # --------------------------------------------------------------------- session output
    def _on_state(self, snapshot) -> None:
        self.status.show_snapshot(snapshot)
        position = snapshot.position if snapshot.status == Status.PAUSED else None
        self.editor.set_current_line(getattr(position, "line", None))
        executing = None
        graph = snapshot.graph
        if self.documents.recorded is not None and (graph is None
                                                    or graph.number_of_nodes() == 0):
            # A recorded file shows its recorded graph until its script builds one.
            self.builder.refresh()
            self._update_actions()
            return
        if graph is not None and position is not None and position.backward_step:
            executing = last_executed(graph)
        step = getattr(position, "backward_step", None)
        self.inspector.backward_total = step[1] if step else None  # as the status bar counts
        self.graph_view.show_graph(graph, snapshot.layout, executing=executing)
        if self.inspector.node_id and graph is not None:
            self.inspector.show_node(self.graph_view.shown_graph, self.inspector.node_id)
        # A note belongs to the line paused at: running on (or to the end) takes it away.
        pause = snapshot.pause if position is not None else None
        self.documents.show_note(position.line if position is not None else None,
                                 getattr(pause, "reason", None))
        # A data breakpoint's culprit, a runtime error's node: selected, the inspector shows it
        self.fault_focus.show(snapshot, graph)
        self.builder.refresh()
        self._update_actions()

    # ---------------------------------------------------------------------------- chrome
    def _update_actions(self) -> None:
        status = self.controller.snapshot.status
        busy = status == Status.RUNNING  # commands queue: only a running script disables them
        running = busy or self.controller.busy  # Stop and Pause: also before it has started
        a = self.actions_by_id
        for key in ("debug.continue", "debug.step_over", "debug.step_into", "debug.step_out",
                    "debug.next_iteration", "debug.run_to_line"):
            a[key].setEnabled(not busy)
        a["debug.stop"].setEnabled(running or status == Status.PAUSED)
        a["debug.pause"].setEnabled(running)
        a["debug.run_to_end"].setEnabled(not busy)
        can_go_back = not busy and bool(self.controller.current_point())
        a["debug.step_back"].setEnabled(can_go_back)
        a["debug.step_back_into"].setEnabled(can_go_back)
        a["debug.previous_iteration"].setEnabled(can_go_back)
        can_build = self.builder.blocked_reason() is None
        for key in ("build.new_tensor", "build.new_layer", "build.apply_op",
                    "build.add_optimizer", "build.training_loop"):
            a[key].setEnabled(can_build)

    def update_title(self) -> None:
        self.setWindowTitle(f"{self.documents.title}[*] — gradstep")
        self.setWindowModified(self.documents.is_modified())

    def _apply_theme(self, dark: bool) -> None:
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, dark)
        self.editor.set_dark(dark)
        self.graph_view.set_dark(dark)
        self.inspector.matrix.refresh_theme()

    def focus_part(self, key: str, widget: QWidget) -> None:
        """Show dock ``key`` and give ``widget`` the keyboard (View ▸ Focus …)."""
        dock = self.docks.get(key)
        if dock is not None:
            dock.show()
            dock.raise_()
        widget.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _restore_layout(self) -> None:
        geometry, state = self.settings.window_state()
        self._saved_state = state
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.first_painted_at is None:
            self.first_painted_at = time.perf_counter()  # the cold start's finish line
            QTimer.singleShot(0, self._after_first_paint)

    def _after_first_paint(self) -> None:
        if self._open_demo_after_paint:
            self._open_demo_after_paint = False
            if not self._shut_down and self.controller.session is None:
                self.documents.open_demo()
        self.ensure_panels()

    # ---------------------------------------------------------------------- drag and drop
    def dragEnterEvent(self, event) -> None:
        if dropped_file(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = dropped_file(event.mimeData())
        if path is not None and self.documents.maybe_discard():
            event.acceptProposedAction()
            self.documents.open_path(path)

    # ----------------------------------------------------------------------------- closing
    def closeEvent(self, event) -> None:
        if self.ask_before_discarding and not self.documents.maybe_discard():
            event.ignore()
            return
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.shutdown()
        self.documents.closed_cleanly()  # nothing to recover next time
        event.accept()

    def shutdown(self) -> None:
        """Stop the worker and delete pyqtgraph widgets now (one alive at exit can crash)."""
        if self._shut_down:
            return
        self._shut_down = True
        self.documents.autosave_timer.stop()
        self.controller.shutdown()
        self.inspector.dispose()
        for panel in self.panels.values():
            dispose = getattr(panel, "dispose", None) or getattr(panel, "shutdown", None)
            if callable(dispose):
                dispose()
            panel.setParent(None)
            panel.deleteLater()
        self.panels.clear()

