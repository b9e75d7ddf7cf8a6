"""Helpers the window tests share: waiting for the session, triggering actions, finding nodes."""

from __future__ import annotations

from PySide6.QtCore import Qt


def wait_idle(qtbot, window, timeout: int = 20000) -> None:
    """Until the worker is idle and the last state has been published to the views."""
    c = window.controller

    def idle():
        assert not c.busy
        assert not c._pending_snapshot and not c._flush_timer.isActive()

    qtbot.waitUntil(idle, timeout=timeout)


def trigger(qtbot, window, action_id: str, timeout: int = 20000) -> None:
    """Trigger an action by id, as its menu item or key does, and wait for the session."""
    action = window.actions_by_id[action_id]
    assert action.isEnabled(), f"{action_id} is disabled"
    action.trigger()
    wait_idle(qtbot, window, timeout)


def click_node(qtbot, window, node_id: str) -> None:
    """Click a node in the graph with the mouse, as a user would."""
    view = window.graph_view
    item = view.nodes[node_id]
    view.canvas.centerOn(item)
    point = view.canvas.mapFromScene(item.scenePos())
    qtbot.mouseClick(view.canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.selected_id() == node_id


def status(window) -> str:
    return window.controller.snapshot.status


def position(window):
    return window.controller.snapshot.position
