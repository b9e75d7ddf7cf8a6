"""``Panel``: the base of the dockable panels (one way to detach from the controller)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from .point import PointView, point_view

if TYPE_CHECKING:  # pragma: no cover
    from .hub import PanelsHub


class Panel(QWidget):
    """Base of the dockable panels: one way to detach from the controller and the engine.

    Subclasses list the controller signals they listen to in ``connections()`` and stop their
    timers in ``stop_timers()``; ``shutdown()`` (also run on close) undoes both and releases the
    shared hub, so no panel outlives its session's listeners.
    """

    hub: "PanelsHub | None" = None
    _shown_event = None  # the event of the point drawn last

    def new_point(self) -> PointView | None:
        """The point to draw now, or None: running, or the point drawn last published again
        (a redraw must not wipe what "changed" marks)."""
        view = point_view(self.controller, self.hub)
        if view is None or view.event is self._shown_event:
            return None
        self._shown_event = view.event
        return view

    def connections(self) -> list:
        return [(self.controller.state_changed, self.refresh)]

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
