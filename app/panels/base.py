"""``Panel``: the base of the dockable panels (one way to detach from the controller)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDockWidget, QWidget

from .point import PointView, point_view

if TYPE_CHECKING:  # pragma: no cover
    from .hub import PanelsHub


class Panel(QWidget):
    """Base of the dockable panels: one way to detach from the controller and the engine.

    Subclasses list the controller signals they listen to in ``connections()`` and stop their
    timers in ``stop_timers()``; ``shutdown()`` (also run on close) undoes both and releases the
    shared hub, so no panel outlives its session's listeners.

    A ``lazy`` panel out of sight (another tab of its dock in front, its dock closed) draws
    nothing: ``refresh_in_view`` marks it stale, and it draws the point the session shows when
    it comes into view (``came_into_view``), or when a caller reads it (``up_to_date``). In the
    default layout most panels sit behind the inspector and the console, and their redraws were
    most of a step's cost in the window.
    """

    hub: "PanelsHub | None" = None
    lazy = False  # draws only while seen (connections() connects refresh_in_view)
    _shown_event = None  # the event of the point drawn last
    _stale = False  # a state was published while out of sight: draw it when seen
    _dock: QDockWidget | None = None  # whose tab shows this panel (_watch_dock)

    def in_view(self) -> bool:
        """The user can see this panel: it is shown and not behind another tab of its dock (Qt
        6 keeps such a dock "visible", moved out of sight, and says so by visibilityChanged).
        Without a window on screen (a panel on its own, in a test) it always is."""
        self._watch_dock()
        return not self.window().isVisible() or (self.isVisible()
                                                 and not self.visibleRegion().isEmpty())

    def refresh_in_view(self, *_args) -> None:
        """``refresh`` now if the panel is seen, else when it is."""
        if self.in_view():
            self._stale = False
            self.refresh()
        else:
            self._stale = True

    def up_to_date(self) -> None:
        """Draw a point that came while out of sight, before something reads what is drawn."""
        if self._stale and self.hub is not None:
            self._stale = False
            self.draw_stale()

    def came_into_view(self, *_args) -> None:
        if self._stale and self.hub is not None and self.in_view():
            self._stale = False
            self.draw_stale()

    def draw_stale(self) -> None:
        """What was put off while out of sight: by default the whole ``refresh``."""
        self.refresh()

    def _watch_dock(self) -> None:
        dock = self.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is not None and dock is not self._dock:
            self._dock = dock
            dock.visibilityChanged.connect(self.came_into_view)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.came_into_view()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.came_into_view()  # laid out at last, or its dock's tab raised

    def new_point(self) -> PointView | None:
        """The point to draw now, or None: running, or the point drawn last published again
        (a redraw must not wipe what "changed" marks)."""
        view = point_view(self.controller, self.hub)
        if view is None or view.event is self._shown_event:
            return None
        self._shown_event = view.event
        return view

    def connections(self) -> list:
        return [(self.controller.state_changed,
                 self.refresh_in_view if self.lazy else self.refresh)]

    def connect_signals(self) -> None:
        for signal, slot in self.connections():
            if signal is not None:
                signal.connect(slot)

    def stop_timers(self) -> None:
        pass

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Detach from the controller and the engine; call before the widget is destroyed."""
        if self.hub is None:
            return
        self.stop_timers()
        for signal, slot in self.connections():
            try:
                if signal is not None:
                    signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self.hub.release()
        self.hub = None
