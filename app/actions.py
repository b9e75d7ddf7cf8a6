"""Every command of the window, as data: one row per action.

Menus, the debug toolbar and the tests are all built from ``ACTIONS``: a test triggers an action by
its id (``window.actions_by_id["debug.step_into"].trigger()``), exactly as the menu or the key does.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence

from . import icons


@dataclass(frozen=True)
class ActionSpec:
    id: str
    title: str
    shortcut: str  # QKeySequence text ("" for none)
    icon: str  # file name in resources/icons without ".svg" ("" for none)
    handler: str  # name of the MainWindow method that runs it
    menu: str  # the top-level menu it appears in
    toolbar: bool = False  # also on the debug toolbar
    checkable: bool = False
    tip: str = ""
    # "window": the key works anywhere in the window; "graph": only while the graph has focus
    # (a bare letter like F must not be taken from the editor).
    scope: str = "window"


A = ActionSpec
ACTIONS: tuple[ActionSpec, ...] = (
    # id, title, shortcut, icon, handler, menu
    A("file.new", "&New", "Ctrl+N", "new", "new_file", "File"),
    A("file.open", "&Open…", "Ctrl+O", "open", "open_file_dialog", "File"),
    A("file.examples", "&Examples…", "Ctrl+Shift+E", "examples", "show_examples", "File"),
    A("file.save", "&Save", "Ctrl+S", "save", "save_file", "File"),
    A("file.save_as", "Save &As…", "Ctrl+Shift+S", "", "save_file_as", "File"),
    A("file.quit", "&Quit", "Ctrl+Q", "", "close", "File"),
    A("edit.undo", "&Undo", "Ctrl+Z", "", "undo", "Edit"),
    A("edit.redo", "&Redo", "Ctrl+Shift+Z", "", "redo", "Edit"),
    A("edit.find_node", "&Find Tensor in Graph…", "Ctrl+F", "search", "focus_graph_search",
      "Edit"),
    A("build.new_tensor", "New &Tensor…", "Ctrl+T", "", "build_new_tensor", "Build",
      tip="Write a line that creates a tensor: values or shape, dtype, requires_grad"),
    A("build.new_layer", "New La&yer…", "Ctrl+Shift+T", "", "build_new_layer", "Build",
      tip="Write a line that creates an nn.Linear layer or an MLP (nn.Sequential)"),
    A("build.apply_op", "&Apply an Op…", "Ctrl+K", "", "build_apply_op", "Build",
      tip="Pick an op for the selected tensors from the palette"),
    A("build.add_optimizer", "Add an &Optimizer…", "", "", "build_add_optimizer", "Build",
      tip="Write the line that makes an optimizer for chosen parameters"),
    A("build.training_loop", "Wrap in a Training &Loop…", "", "", "build_training_loop", "Build",
      tip="Move the forward pass into a loop: zero_grad, forward, backward, step"),
    A("build.rerun_on_edit", "&Re-run After Every Edit", "", "", "build_rerun_on_edit", "Build",
      checkable=True, tip="Run the script to its end after each edit you type, too"),
    A("debug.continue", "&Continue", "F5", "continue", "debug_continue", "Debug", True,
      tip="Run to the next breakpoint or the end"),
    A("debug.step_over", "Step &Over", "F10", "step_over", "debug_step_over", "Debug", True,
      tip="Run the current statement"),
    A("debug.step_into", "Step &Into", "F11", "step_into", "debug_step_into", "Debug", True,
      tip="Step into a function, or into backward() one node at a time"),
    A("debug.step_out", "Step O&ut", "Shift+F11", "step_out", "debug_step_out", "Debug", True,
      tip="Finish the current function or backward()"),
    A("debug.next_iteration", "Next &Iteration", "Ctrl+F10", "next_iteration",
      "debug_next_iteration", "Debug", True, tip="Run to the next pass of the enclosing loop"),
    A("debug.run_to_line", "Run to &Cursor", "Ctrl+F8", "", "debug_run_to_cursor", "Debug"),
    A("debug.run_to_end", "Run to &End", "Ctrl+F5", "", "debug_run_to_end", "Debug",
      tip="Run to the end of the script, past every breakpoint"),
    A("debug.pause", "&Pause", "F6", "pause", "debug_pause", "Debug"),
    A("debug.stop", "&Stop", "Shift+F5", "stop", "debug_stop", "Debug", True,
      tip="Stop the script, even in the middle of a long loop"),
    A("debug.restart", "&Restart", "Ctrl+Shift+F5", "restart", "debug_restart", "Debug", True,
      tip="Run the editor's text again from the top"),
    A("debug.toggle_breakpoint", "Toggle &Breakpoint", "F9", "breakpoint", "toggle_breakpoint",
      "Debug"),
    A("debug.break_on_nan", "Break on &NaN/Inf", "", "", "break_on_nan", "Debug", checkable=True,
      tip="Pause where a tensor, an op's output or a gradient first gets a NaN or Inf"),
    A("debug.break_on_backward", "Break at &backward()", "", "", "break_on_backward", "Debug",
      checkable=True),
    A("debug.break_on_zero_grad", "Break at &zero_grad()", "", "", "break_on_zero_grad", "Debug",
      checkable=True),
    A("debug.break_on_step", "Break at optimizer.s&tep()", "", "", "break_on_step", "Debug",
      checkable=True),
    A("view.fit", "&Fit Graph", "F", "fit", "fit_graph", "View", True,
      tip="Fit the whole graph in the view", scope="graph"),
    A("view.zoom_in", "Zoom &In", "Ctrl+=", "", "zoom_in", "View"),
    A("view.zoom_out", "Zoom O&ut", "Ctrl+-", "", "zoom_out", "View"),
    A("view.fold_all", "F&old Module Groups", "Ctrl+Shift+[", "", "fold_all_groups", "View"),
    A("view.unfold_all", "U&nfold Module Groups", "Ctrl+Shift+]", "", "unfold_all_groups",
      "View"),
    A("view.dark_theme", "&Dark Theme", "", "", "toggle_dark_theme", "View", checkable=True),
    A("view.reset_layout", "Reset &Layout", "", "", "reset_layout", "View"),
    A("help.about", "&About gradstep", "", "", "show_about", "Help"),
)
del A

MENUS = ("File", "Edit", "Build", "Debug", "View", "Help")

ACTIONS_BY_ID = {spec.id: spec for spec in ACTIONS}


def build_actions(window) -> dict[str, QAction]:
    """Create one QAction per row, connected to ``window.<handler>``."""
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = QAction(spec.title, window)
        action.setObjectName(spec.id)
        if spec.shortcut:
            action.setShortcut(QKeySequence(spec.shortcut))
        if spec.icon:
            action.setIcon(icons.icon(spec.icon))
        else:
            action.setIcon(QIcon())
        action.setCheckable(spec.checkable)
        if spec.scope == "graph":
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        tip = spec.tip or spec.title.replace("&", "").replace("…", "")
        if spec.shortcut:
            tip = f"{tip} ({QKeySequence(spec.shortcut).toString(QKeySequence.NativeText)})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        handler = getattr(window, spec.handler)
        if spec.checkable:
            action.toggled.connect(handler)
        else:
            action.triggered.connect(lambda _checked=False, h=handler: h())
        actions[spec.id] = action
    return actions
