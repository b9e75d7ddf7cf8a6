"""The Debug menu's data breakpoints: one ``engine.files.DataBreakpoints`` the window keeps.

The same value is what a graph file saves, what the menu's checks show and what every session
the window installs stops on (a new session, an opened file or an edited script, gets it again).
``grad_norm`` has no menu entry: it comes from the file and goes back to it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from engine.files.format import DataBreakpoints

# The checkable action of each flag.
ACTION_OF_FIELD = {"nan": "debug.break_on_nan", "on_backward": "debug.break_on_backward",
                   "on_zero_grad": "debug.break_on_zero_grad", "on_step": "debug.break_on_step"}


class DataBreakpointSwitches:
    """The data breakpoints switched on, kept in step with the session and the menu checks."""

    def __init__(self, controller, actions_by_id: dict) -> None:
        self.controller = controller
        self.actions_by_id = actions_by_id
        self._value: DataBreakpoints | None = None  # made on first use: engine.files is not
        # imported before the window's first paint
        controller.session_replaced.connect(self.apply)

    @property
    def value(self) -> DataBreakpoints:
        if self._value is None:
            from engine.files.format import DataBreakpoints

            self._value = DataBreakpoints()
        return self._value

    def set(self, field: str, on: bool) -> None:
        """A menu check changed: switch ``field`` (``nan``, ``on_backward``, ...)."""
        self._value = replace(self.value, **{field: bool(on)})
        self.controller.set_data_breakpoints(self.value)

    def load(self, saved: DataBreakpoints | None) -> None:
        """A file's data breakpoints become the menu's checks (and the session's)."""
        self._value = replace(saved) if saved is not None else None
        for field, action_id in ACTION_OF_FIELD.items():
            action = self.actions_by_id[action_id]
            action.blockSignals(True)
            action.setChecked(getattr(self.value, field))
            action.blockSignals(False)
        self.controller.set_data_breakpoints(self.value)

    def for_save(self) -> DataBreakpoints:
        return replace(self.value)

    def apply(self, session) -> None:
        if session is not None:
            session.set_data_breakpoints(self.value)
