"""Every command of the window, as data: one row per action.

Menus, the debug toolbar and the tests are all built from ``ACTIONS``: a test triggers an action by
its id (``window.actions_by_id["debug.step_into"].trigger()``), exactly as the menu or the key does.
Each row's handler is a callable given the window (and, for a checkable action, its new state):
it reaches the part of the window that does the work (``documents``, ``builder``, ``controller``,
``data_breakpoints``, ``graph_view``, ``editor``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QToolBar

from . import icons

if TYPE_CHECKING:  # pragma: no cover
    from .main_window import MainWindow

@dataclass(frozen=True)
class ActionSpec:
    id: str
    title: str
    shortcut: str  # QKeySequence text ("" for none)
    icon: str  # file name in resources/icons without ".svg" ("" for none)
    handler: Callable[..., None]  # handler(window), or handler(window, checked) if checkable
    menu: str  # the top-level menu it appears in
    toolbar: bool = False  # also on the debug toolbar
    checkable: bool = False
    tip: str = ""
    # "window": the key works anywhere in the window; "graph": only while the graph has focus
    # (a bare letter like F must not be taken from the editor).
    scope: str = "window"
    checked: bool = False  # a checkable row's state when the window opens


# -- handlers that take more than one call
def _run(command: Callable) -> Callable[[MainWindow], None]:
    """An action that runs a controller command (``command(controller)`` names the bound
    method) off the GUI thread, through the window."""
    return lambda w: w.run_command(command(w.controller))


def _find_node(w: MainWindow) -> None:
    w.graph_view.search.setFocus()
    w.graph_view.search.selectAll()


def _rerun_on_edit(w: MainWindow, on: bool) -> None:
    w.builder.rerun_on_edit = on


def _run_to_cursor(w: MainWindow) -> None:
    line = w.editor.cursor_line()
    w.run_command(lambda: w.controller.run_to_line(line))


def _travel_back(target: Callable[[MainWindow], int | None],
                 nothing: str) -> Callable[[MainWindow], None]:
    """Go back on the timeline to the point ``target(window)`` names (``nothing``: what the
    status bar says when it names none). The script is re-run to that point (``go_to``), and the
    points ahead stay on the timeline, so going forward again drops nothing."""

    def back(w: MainWindow) -> None:
        if w.controller.busy:
            w.status.showMessage("The script is running: pause it to go back", 3000)
            return
        if w.source_changed():
            w.status.showMessage("The script was edited: run it again to go back through it",
                                 4000)
            return
        point = target(w)
        if point is None:
            w.status.showMessage(nothing, 3000)
            return
        w.controller.go_to(point)

    return back


def _step_back(into: bool) -> Callable[[MainWindow], None]:
    """Step Back: the previous statement on the timeline (Step Back Into: the previous point,
    a backward step included)."""
    return _travel_back(lambda w: w.controller.previous_point(into=into),
                        "Nothing to step back to: this is the first point")


def previous_iteration_point(timeline: Sequence, here: int | None) -> int | None:
    """Where Previous Iteration goes from point ``here``: the first statement of the iteration
    before the one ``here`` is in (after the loop: of its last iteration), the point Next
    Iteration stops at. None in the first iteration or outside any loop.

    The timeline's points carry the outermost loop's iteration; the iteration before is the run
    of points just before ``here``'s run (a second loop counts from 0 again)."""
    if here is None or not 0 <= here < len(timeline):
        return None
    i = here
    while i >= 0 and timeline[i].iteration == timeline[here].iteration:
        i -= 1
    if i < 0 or timeline[i].iteration is None:
        return None
    wanted = timeline[i].iteration
    while i > 0 and timeline[i - 1].iteration == wanted:
        i -= 1
    return next((j for j in range(i, here) if timeline[j].kind == "statement"), i)


def _previous_iteration(w: MainWindow) -> int | None:
    return previous_iteration_point(w.controller.snapshot.timeline or (),
                                    w.controller.current_point())


def _stop(w: MainWindow) -> None:
    w.stop_report.requested()  # where the script is now, before the stop moves it
    w.controller.stop()
    w.status.showMessage("Stopping…", 2000)


def _restart(w: MainWindow) -> None:
    if w.source_changed():
        w.reload_editor_text()
    w.controller.restart()


def _zoom(factor: float) -> Callable[[MainWindow], None]:
    def zoom(w: MainWindow) -> None:
        w.graph_view.canvas.user_moved = True
        w.graph_view.canvas.zoom_by(factor)

    return zoom


def _data_breakpoint(field: str) -> Callable[[MainWindow, bool], None]:
    return lambda w, on: w.data_breakpoints.set(field, on)


def _about(w: MainWindow) -> None:
    QMessageBox.about(w, "About gradstep",
                      "<b>gradstep</b> — a debugger for autograd.<br>Step through "
                      "backward(), zero_grad() and optimizer.step() and watch every "
                      "gradient buffer change.")


A = ActionSpec
ACTIONS: tuple[ActionSpec, ...] = (
    # id, title, shortcut, icon, handler, menu
    A("file.new", "&New", "Ctrl+N", "new", lambda w: w.documents.new_file(), "File"),
    A("file.open", "&Open…", "Ctrl+O", "open", lambda w: w.documents.open_file_dialog(), "File"),
    A("file.examples", "&Examples…", "Ctrl+Shift+E", "examples",
      lambda w: w.documents.show_examples(), "File"),
    A("file.save", "&Save", "Ctrl+S", "save", lambda w: w.documents.save_file(), "File"),
    A("file.save_as", "Save &As…", "Ctrl+Shift+S", "", lambda w: w.documents.save_file_as(),
      "File"),
    A("file.edit_notes", "Edit &Notes…", "", "", lambda w: w.documents.edit_notes(), "File",
      tip="Write the note each line shows when a run pauses there (saved in the .gstep file)"),
    A("file.quit", "&Quit", "Ctrl+Q", "", lambda w: w.close(), "File"),
    A("edit.undo", "&Undo", "Ctrl+Z", "", lambda w: w.editor.undo(), "Edit"),
    A("edit.redo", "&Redo", "Ctrl+Shift+Z", "", lambda w: w.editor.redo(), "Edit"),
    A("edit.find_node", "&Find Tensor in Graph…", "Ctrl+F", "search", _find_node, "Edit"),
    A("build.new_tensor", "New &Tensor…", "Ctrl+T", "", lambda w: w.builder.new_tensor(), "Build",
      tip="Write a line that creates a tensor: values or shape, dtype, requires_grad"),
    A("build.new_layer", "New La&yer…", "Ctrl+Shift+T", "", lambda w: w.builder.new_layer(),
      "Build", tip="Write a line that creates an nn.Linear layer or an MLP (nn.Sequential)"),
    A("build.apply_op", "&Apply an Op…", "Ctrl+K", "", lambda w: w.builder.show_palette(),
      "Build", tip="Pick an op for the selected tensors from the palette"),
    A("build.add_optimizer", "Add an &Optimizer…", "", "", lambda w: w.builder.add_optimizer(),
      "Build", tip="Write the line that makes an optimizer for chosen parameters"),
    A("build.training_loop", "Wrap in a Training &Loop…", "", "",
      lambda w: w.builder.training_loop(), "Build",
      tip="Move the forward pass into a loop: zero_grad, forward, backward, step"),
    A("build.rerun_on_edit", "&Re-run After Every Edit", "", "", _rerun_on_edit, "Build",
      checkable=True, tip="Run the script to its end after each edit you type, too"),
    A("debug.continue", "&Continue", "F5", "continue", _run(lambda c: c.continue_), "Debug",
      True, tip="Run to the next breakpoint or the end"),
    A("debug.step_over", "Step &Over", "F10", "step_over", _run(lambda c: c.step_over),
      "Debug", True, tip="Run the current statement"),
    A("debug.step_into", "Step &Into", "F11", "step_into", _run(lambda c: c.step_into),
      "Debug", True, tip="Step into a function, or into backward() one node at a time"),
    A("debug.step_out", "Step O&ut", "Shift+F11", "step_out", _run(lambda c: c.step_out),
      "Debug", True, tip="Finish the current function or backward()"),
    A("debug.next_iteration", "Next &Iteration", "Ctrl+F10", "next_iteration",
      _run(lambda c: c.next_iteration), "Debug", True,
      tip="Run to the next pass of the enclosing loop"),
    A("debug.previous_iteration", "Pre&vious Iteration", "Alt+Shift+F10",
      "mirror:next_iteration",
      _travel_back(_previous_iteration, "No previous iteration: this is the first, or no loop"),
      "Debug", True,
      tip="Go back to the start of the previous pass of the loop (time travel on the timeline)"),
    A("debug.step_back", "Step Bac&k", "Ctrl+Shift+F10", "mirror:step_over", _step_back(False),
      "Debug", True, tip="Go back to the previous statement (time travel on the timeline)"),
    A("debug.step_back_into", "Step B&ack Into", "Ctrl+Shift+F11", "mirror:step_into",
      _step_back(True), "Debug", True,
      tip="Go back one point, through backward() node by node where it was stepped"),
    A("debug.run_to_line", "Run to &Cursor", "Ctrl+F8", "", _run_to_cursor, "Debug"),
    A("debug.run_to_end", "Run to &End", "Ctrl+F5", "", _run(lambda c: c.run_to_end), "Debug",
      tip="Run to the end of the script, past every breakpoint"),
    A("debug.pause", "&Pause", "F6", "pause", lambda w: w.controller.pause(), "Debug"),
    A("debug.stop", "&Stop", "Shift+F5", "stop", _stop, "Debug", True,
      tip="Stop the script, even in the middle of a long loop"),
    A("debug.restart", "&Restart", "Ctrl+Shift+F5", "restart", _restart, "Debug", True,
      tip="Run the editor's text again from the top"),
    A("debug.toggle_breakpoint", "Toggle &Breakpoint", "F9", "breakpoint",
      lambda w: w.editor.toggle_breakpoint(w.editor.cursor_line()), "Debug"),
    A("debug.break_on_nan", "Break on &NaN/Inf", "", "", _data_breakpoint("nan"), "Debug",
      checkable=True,
      tip="Pause where a tensor, an op's output or a gradient first gets a NaN or Inf"),
    A("debug.break_on_backward", "Break at &backward()", "", "", _data_breakpoint("on_backward"),
      "Debug", checkable=True),
    A("debug.break_on_zero_grad", "Break at &zero_grad()", "", "",
      _data_breakpoint("on_zero_grad"), "Debug", checkable=True),
    A("debug.break_on_step", "Break at optimizer.s&tep()", "", "", _data_breakpoint("on_step"),
      "Debug", checkable=True),
    A("view.fit", "&Fit Graph", "F", "fit", lambda w: w.graph_view.canvas.fit_all(), "View", True,
      tip="Fit the whole graph in the view", scope="graph"),
    A("view.zoom_in", "Zoom &In", "Ctrl+=", "", _zoom(1.25), "View"),
    A("view.zoom_out", "Zoom O&ut", "Ctrl+-", "", _zoom(1 / 1.25), "View"),
    A("view.fold_all", "F&old Module Groups", "Ctrl+Shift+[", "",
      lambda w: w.graph_view.set_all_folded(True), "View"),
    A("view.unfold_all", "U&nfold Module Groups", "Ctrl+Shift+]", "",
      lambda w: w.graph_view.set_all_folded(False), "View"),
    A("view.wrap_lines", "&Wrap Long Lines", "", "", lambda w, on: w.editor.set_wrap(on),
      "View", checkable=True, checked=True,
      tip="Wrap the editor's long lines at its edge (off: scroll sideways to see them)"),
    A("view.dark_theme", "&Dark Theme", "", "", lambda w, dark: w.set_dark_theme(dark), "View",
      checkable=True),
    A("view.reset_layout", "Reset &Layout", "", "", lambda w: w.reset_layout(), "View"),
    A("help.about", "&About gradstep", "", "", _about, "Help"),
)
del A

MENUS = ("File", "Edit", "Build", "Debug", "View", "Help")

ACTIONS_BY_ID = {spec.id: spec for spec in ACTIONS}


def build_actions(window) -> dict[str, QAction]:
    """Create one QAction per row, connected to its handler (given ``window``)."""
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = QAction(spec.title, window)
        action.setObjectName(spec.id)
        if spec.shortcut:
            action.setShortcut(QKeySequence(spec.shortcut))
        if spec.icon.startswith("mirror:"):
            action.setIcon(icons.mirrored(spec.icon.split(":", 1)[1]))
        elif spec.icon:
            action.setIcon(icons.icon(spec.icon))
        else:
            action.setIcon(QIcon())
        action.setCheckable(spec.checkable)
        action.setChecked(spec.checked)  # before connecting: the editor starts in this state
        if spec.scope == "graph":
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        tip = spec.tip or spec.title.replace("&", "").replace("…", "")
        if spec.shortcut:
            tip = f"{tip} ({QKeySequence(spec.shortcut).toString(QKeySequence.NativeText)})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        if spec.checkable:
            action.toggled.connect(lambda on, h=spec.handler: h(window, on))
        else:
            action.triggered.connect(lambda _checked=False, h=spec.handler: h(window))
        actions[spec.id] = action
    return actions


# Menu rows that start a new section.
_SEPARATED = ("debug.toggle_breakpoint", "debug.stop", "view.wrap_lines", "edit.find_node",
              "debug.break_on_nan", "build.add_optimizer", "build.rerun_on_edit")


def build_menus(window: MainWindow) -> tuple[dict[str, QMenu], QMenu, QMenu]:
    """The menu bar from ``ACTIONS`` (after ``build_actions``), with Open Recent, View ▸ Panels
    and View ▸ Focus …; returns (menus by name, the recent menu, the panels menu)."""
    from .docks import panel_toggle

    bar = window.menuBar()
    menus = {name: bar.addMenu(f"&{name}") for name in MENUS}
    recent_menu = None
    for spec in ACTIONS:
        if spec.id == "file.quit":
            recent_menu = QMenu("Open &Recent", window)
            recent_menu.setObjectName("recentMenu")
            recent_menu.aboutToShow.connect(
                lambda menu=recent_menu: window.documents.fill_recent_menu(menu))
            menus["File"].addMenu(recent_menu)
            menus["File"].addSeparator()
        if spec.id in _SEPARATED:
            menus[spec.menu].addSeparator()
        menus[spec.menu].addAction(window.actions_by_id[spec.id])
        if spec.scope == "graph":
            window.graph_view.canvas.addAction(window.actions_by_id[spec.id])
    panels_menu = menus["View"].addMenu("&Panels")
    for key in window.docks:
        panels_menu.addAction(panel_toggle(window.docks, key))
    # Keyboard: jump to each main part of the window.
    for number, (key, target) in enumerate((("editor", window.editor),
                                            ("graph", window.graph_view.canvas),
                                            ("inspector", window.inspector.text),
                                            ("console", window.console.view)), start=1):
        jump = QAction(f"Focus {key.title()}", window)
        jump.setObjectName(f"view.focus_{key}")
        jump.setShortcut(QKeySequence(f"Ctrl+{number}"))
        jump.triggered.connect(lambda _c=False, k=key, t=target: window.focus_part(k, t))
        menus["View"].addAction(jump)
        window.actions_by_id[f"view.focus_{key}"] = jump
    return menus, recent_menu, panels_menu


def build_toolbar(window: MainWindow) -> QToolBar:
    """The debug toolbar: the file actions with icons, then the rows marked ``toolbar``."""
    toolbar = QToolBar("Debug", window)
    toolbar.setObjectName("debugToolbar")
    toolbar.setMovable(True)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
    for spec in ACTIONS:
        if spec.id.startswith("file.") and spec.icon and spec.id != "file.examples":
            toolbar.addAction(window.actions_by_id[spec.id])
    toolbar.addSeparator()
    for spec in ACTIONS:
        if spec.toolbar:
            toolbar.addAction(window.actions_by_id[spec.id])
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
    return toolbar
