"""The graph's context menu for a tensor: one action per ``engine.builder.node_actions``.

Every action writes the PyTorch line it stands for (``y.retain_grad()``, ``loss.backward()``,
``print(y.item())``...). Disabled actions say why, as a tooltip and a status tip: a leaf keeps
its grad anyway, an integer tensor cannot require grad, ``.item()`` of 3 elements is PyTorch's
own error.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMenu

from engine.builder.edits import BuildError, CodeEdit
from engine.builder.node_actions import apply_node_action, node_actions


def fill_node_menu(menu: QMenu, workspace, tensor_name: str, source: str,
                   on_edit: Callable[[CodeEdit], None]) -> None:
    """Add the tensor's actions to ``menu``; triggering one calls ``on_edit(CodeEdit)``."""
    menu.setToolTipsVisible(True)
    for action in node_actions(workspace, tensor_name, source):
        # The item reads as the line it writes (the user learns the spelling); a refused one
        # says why right there, in full in its tooltip.
        item = menu.addAction(_menu_text(action))
        item.setObjectName(f"node_action_{action.id}")
        item.setData(action.id)
        item.setEnabled(bool(action.enabled))
        tip = action.code if action.enabled else action.reason
        item.setToolTip(tip or action.title)
        item.setStatusTip(tip or "")
        if action.enabled:
            item.triggered.connect(
                lambda _checked=False, a=action.id: _apply(a, workspace, tensor_name, source,
                                                           on_edit, menu))


REASON_IN_MENU = 70  # characters of a refusal shown in the menu item itself


def _menu_text(action) -> str:
    text = action.code or action.title
    if action.enabled or not action.reason:
        return text
    reason = action.reason.splitlines()[0]
    if len(reason) > REASON_IN_MENU:
        reason = reason[:REASON_IN_MENU - 1].rstrip() + "…"
    return f"{text}   — {reason}"


def _apply(action_id, workspace, tensor_name, source, on_edit, menu) -> None:
    try:
        # detach's new name is the one its code shows (suggested by the engine)
        edit = apply_node_action(source, workspace, tensor_name, action_id)
    except BuildError as exc:  # the workspace changed under the menu: say so, write nothing
        window = menu.parentWidget().window() if menu.parentWidget() is not None else None
        bar = getattr(window, "statusBar", None)
        if callable(bar):
            bar().showMessage(str(exc), 8000)
        return
    on_edit(edit)
