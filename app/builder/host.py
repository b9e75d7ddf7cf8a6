"""The window's side of building by pointing (issue 8): gestures become code, code becomes graph.

Every gesture (the Build panel, its forms, the graph's context menu) produces an engine
``CodeEdit``. The host writes it into the editor as one undoable edit and re-runs the editor's
text to its end, past breakpoints, so the new line's result is in the graph at once. The code
stays the one source of truth: an undo or redo that brings the text back to one a gesture made
(or started from) is re-run the same way, so the line and the graph change come and go together.
Hand edits are re-run by the debugger's commands as before, or after each pause in typing when
"Re-run After Every Edit" is on.

The host holds no math: what a gesture means, which ops are valid and what line it writes are
all ``engine.builder``'s.
"""

from __future__ import annotations

import ast
from typing import Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from engine.session.events import Status

TYPING_PAUSE_MS = 700  # "Re-run After Every Edit": wait for this pause in typing
RUNNING_REASON = "The script is running: building waits until it pauses or ends."
RECORDED_REASON = ("This graph was recorded from PyTorch: it has no script to add lines to. "
                   "Open a script (or File ▸ New) to build by pointing.")


class BuilderWindow(Protocol):
    """What the host uses of the window (``app.main_window.MainWindow`` implements it).

    Attributes: ``editor`` (CodeEditor), ``controller`` (SessionController), ``graph_view``
    (GraphView), ``console`` (ConsolePanel), ``status`` (DebugStatusBar), ``docks`` (key ->
    QDockWidget); and QMainWindow's ``splitDockWidget``.
    """

    editor: object
    controller: object
    graph_view: object
    console: object
    status: object
    docks: dict

    def add_dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        """Dock ``widget`` as ``docks[key]``."""

    def reload_editor_text(self, *, announce: bool = True) -> bool:
        """Make the editor's text the session's script; False if it was refused."""

    def show_in_inspector(self, node_id: str) -> None:
        """Show a graph node in the inspector."""

    def splitDockWidget(self, first, second, orientation) -> None:
        ...


class BuilderHost(QObject):
    """Owns the Build dock and turns its gestures into editor edits and re-runs."""

    def __init__(self, window: BuilderWindow) -> None:
        super().__init__(window)
        self.window = window
        self.panel = None  # app.builder.BuildPanel, docked by ensure_panel()
        self.dialog = None  # the open builder form, if any (tests drive it)
        self.rerun_on_edit = False
        # Texts a gesture produced or started from: returning to one of them (undo, redo)
        # re-runs it, because the graph must follow the line the gesture added or removed.
        self._gesture_texts: set[str] = set()
        self._applying = False
        self._rerun_timer = QTimer(self)
        self._rerun_timer.setSingleShot(True)
        self._rerun_timer.timeout.connect(self._rerun_if_stale)
        # Typing a line takes its name at once (the palette must not suggest it), but the
        # panel is told after a short pause, not on every key.
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(250)
        self._refresh_timer.timeout.connect(self.refresh)
        window.editor.textChanged.connect(self._text_changed)

    # ------------------------------------------------------------------------------ panel
    def ensure_panel(self) -> None:
        if self.panel is not None:
            return
        from PySide6.QtCore import Qt

        from .panel import BuildPanel

        window = self.window
        panel = BuildPanel(window)
        panel.setObjectName("buildPanel")
        panel.edit_requested.connect(self.apply)
        panel.selection_changed.connect(self._panel_selected)
        # The panel's New Tensor / New Layer / Add Optimizer / Training Loop buttons open the
        # same forms as the Build menu, so one place checks whether building is possible.
        openers = {"tensor": self.new_tensor, "layer": self.new_layer,
                   "optimizer": self.add_optimizer,
                   "loop": self.training_loop}
        panel.form_opener = lambda kind: openers[kind]()
        self.panel = panel
        dock = window.add_dock("build", "Build", panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        window.splitDockWidget(window.docks["editor"], dock, Qt.Orientation.Vertical)
        window.graph_view.selection_changed.connect(self._graph_selected)
        self.refresh()

    def dock(self) -> QDockWidget | None:
        return self.window.docks.get("build")

    def show_palette(self) -> None:
        """Build ▸ Apply an Op (Ctrl+K): the palette, with the graph's selection as operands."""
        self.ensure_panel()
        dock = self.dock()
        dock.show()
        dock.raise_()
        self.panel.set_selection(self.selected_names())
        self.panel.focus_search()

    # -------------------------------------------------------------------------- workspace
    def workspace(self):
        """What the script has now (the last run's names), plus every name the editor's text
        binds: a hand-typed line that has not run yet still takes its name."""
        from dataclasses import replace

        from engine.builder.workspace import Workspace, names_bound_in

        in_text = names_bound_in(self.window.editor.toPlainText())
        ran = self.window.controller.snapshot.workspace or Workspace.empty()
        return replace(ran, taken=frozenset(ran.taken | in_text))

    def blocked_reason(self) -> str | None:
        """Why building is not possible right now (None: it is)."""
        controller = self.window.controller
        if controller.session is not None and not controller.session.can_edit:
            return RECORDED_REASON
        if controller.snapshot.status == Status.RUNNING:
            return RUNNING_REASON
        return None

    def refresh(self) -> None:
        """After every published state: the panel offers what the script has now."""
        if self.panel is None:
            return
        reason = self.blocked_reason()
        self.panel.set_enabled_reason(reason)
        if reason == RECORDED_REASON:
            # A recording has no names to build on: the previous script's must not stay listed.
            from engine.builder.workspace import Workspace

            self.panel.set_workspace(Workspace.empty(), "")
        if reason is None:
            not_run = self.window.controller.snapshot.status == Status.IDLE \
                and bool(self.window.editor.toPlainText().strip())
            self.panel.set_empty_hint(
                "the script has not run yet: F5 runs it and lists its tensors (or make one "
                "with New Tensor…)" if not_run else None)
            self.panel.set_workspace(self.workspace(), self.window.editor.toPlainText())
            # The graph's selection may have come back before the new workspace (a re-run
            # through the worker): offer it again against the workspace it belongs to.
            self.panel.set_selection(self.selected_names())

    def selected_names(self) -> list[str]:
        """The tensors selected in the graph, in the order they were picked, spelled as code."""
        names = []
        for node_id in self.window.graph_view.selected_ids():
            name = self.code_name(node_id)
            if name:
                names.append(name)
        return names

    def code_name(self, node_id: str) -> str | None:
        """The expression the script uses for the tensor node ``node_id`` (None: not a tensor).

        The graph names a module's parameter ``model.0.weight``; code says ``model[0].weight``.
        """
        graph = self.window.graph_view.shown_graph
        attrs = graph.nodes[node_id] if node_id and graph is not None and node_id in graph else {}
        if attrs.get("kind") != "tensor" or not attrs.get("name"):
            return None
        from engine.builder.workspace import script_expression

        return script_expression(attrs["name"])

    def _graph_selected(self, _ids) -> None:
        if self.panel is not None:
            self.panel.set_selection(self.selected_names())

    def _panel_selected(self, names) -> None:
        tensors = self.workspace().tensors
        ids = []
        for name in names:
            info = tensors.get(name)
            ids.append(f"t:{(info.graph_name or info.name) if info is not None else name}")
        self.window.graph_view.select_many(ids)

    # ---------------------------------------------------------------------------- gestures
    def apply(self, edit) -> bool:
        """Write ``edit`` (an engine CodeEdit) as one undoable edit and run the new text."""
        reason = self.blocked_reason()
        window = self.window
        if reason is not None:
            window.status.showMessage(reason, 5000)
            return False
        editor = window.editor
        before = editor.toPlainText()
        self._gesture_texts.update((before, edit.source))
        self._applying = True
        try:
            editor.replace_text(edit.source, cursor_line=edit.line)
        finally:
            self._applying = False
        window.status.showMessage(f"Wrote line {edit.line}: {edit.summary}", 6000)
        self.rerun()
        return True

    def rerun(self) -> None:
        """Run the editor's text from the top to its end, past breakpoints."""
        window = self.window
        self._rerun_timer.stop()
        if window.editor.toPlainText() != window.controller.source:
            if not window.reload_editor_text(announce=False):
                return
        window.console.clear()
        window.controller.run_to_end()

    def _text_changed(self) -> None:
        if self._applying:
            return
        if self.panel is not None:
            self._refresh_timer.start()
        text = self.window.editor.toPlainText()
        if text in self._gesture_texts:
            # Undo or redo of a gesture: the graph follows at once.
            self._rerun_timer.start(0)
        elif self.rerun_on_edit:
            self._rerun_timer.start(TYPING_PAUSE_MS)

    def _rerun_if_stale(self) -> None:
        window = self.window
        text = window.editor.toPlainText()
        if text == window.controller.source or self.blocked_reason() is not None:
            return
        if text not in self._gesture_texts:
            try:  # half-typed code waits for the next pause in typing
                ast.parse(text)
            except SyntaxError:
                return
        self.rerun()

    # ------------------------------------------------------------------------------ forms
    def new_tensor(self) -> None:
        from .tensor_dialog import NewTensorDialog

        self._open_form(NewTensorDialog)

    def new_layer(self) -> None:
        from .layer_dialog import NewLayerDialog

        self._open_form(NewLayerDialog)

    def add_optimizer(self) -> None:
        from .optimizer_dialog import OptimizerDialog

        self._open_form(OptimizerDialog)

    def training_loop(self) -> None:
        from .loop_dialog import TrainingLoopDialog

        self._open_form(TrainingLoopDialog)

    def _open_form(self, cls) -> None:
        reason = self.blocked_reason()
        if reason is not None:
            self.window.status.showMessage(reason, 5000)
            return
        if self.dialog is not None:
            self.dialog.close()
        dialog = cls(self.workspace(), self.window.editor.toPlainText(), self.window)
        self.dialog = dialog

        def accepted() -> None:
            edit = getattr(dialog, "accepted_edit", None)
            self.apply(edit if edit is not None else dialog.code_edit())

        def finished(_result) -> None:
            if self.dialog is dialog:
                self.dialog = None
            dialog.deleteLater()

        dialog.accepted.connect(accepted)
        dialog.finished.connect(finished)
        dialog.open()  # window-modal, and the event loop goes on (tests fill it in)

    # ------------------------------------------------------------------------ context menu
    def context_menu(self, node_id: str, global_pos) -> QMenu | None:
        """The graph's right-click menu: the tensor's actions, each writing its line."""
        window = self.window
        menu = QMenu(window)
        menu.setObjectName("graphContextMenu")
        menu.setToolTipsVisible(True)
        reason = self.blocked_reason()
        name = self.code_name(node_id)
        if name:
            from .node_menu import fill_node_menu

            info = self.workspace().tensors.get(name)
            header = menu.addAction(f"{name}  ·  {info.label}" if info is not None else name)
            header.setEnabled(False)
            menu.addSeparator()
            if reason is None:
                fill_node_menu(menu, self.workspace(), name, window.editor.toPlainText(),
                               self.apply)
                menu.addSeparator()
                apply_op = menu.addAction("Apply an Op…")
                apply_op.setObjectName("graphMenu.apply_op")
                apply_op.triggered.connect(self.show_palette)
            else:
                blocked = menu.addAction(reason)
                blocked.setEnabled(False)
            menu.addSeparator()
            inspect = menu.addAction("Show in Inspector")
            inspect.triggered.connect(lambda: window.show_in_inspector(node_id))
        else:
            new_tensor = menu.addAction("New Tensor…")
            new_tensor.setObjectName("graphMenu.new_tensor")
            new_tensor.setEnabled(reason is None)
            new_tensor.triggered.connect(self.new_tensor)
            new_layer = menu.addAction("New Layer…")
            new_layer.setObjectName("graphMenu.new_layer")
            new_layer.setEnabled(reason is None)
            new_layer.triggered.connect(self.new_layer)
            if window.graph_view.selected_ids():
                apply_op = menu.addAction("Apply an Op…")
                apply_op.setEnabled(reason is None)
                apply_op.triggered.connect(self.show_palette)
        self.menu = menu  # tests read it; the next menu replaces it
        if global_pos is not None:
            menu.popup(global_pos)
        return menu
