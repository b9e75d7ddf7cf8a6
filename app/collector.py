"""The cyclic garbage collector runs on the window's thread only, and only between commands.

Python's collector runs in whichever thread crosses an allocation threshold. In the window's
process that is unsafe twice over: a collection on the session's thread destroys PySide objects
off the GUI thread (their destructors take Qt's locks, then wait for the GIL the GUI thread holds:
a deadlock), and a collection on the GUI thread while a command runs walks the session thread's
running greenlets (a crash). So while any controller is alive, automatic collection is off and a
timer on the GUI thread collects when no command is running. The engine makes no reference
cycles (engine/gc_policy.py), so reference counting frees nearly everything meanwhile.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

YOUNG_EVERY_MS = 1000  # generations 0 and 1: a few milliseconds
FULL_EVERY = 30  # ticks between full collections (frozen start-up objects are not walked)

_holders = 0
_was_enabled = True


class MainThreadCollector(QObject):
    """Collects on this (GUI) thread every second while ``busy()`` is False."""

    def __init__(self, busy: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        global _holders, _was_enabled
        if _holders == 0:
            _was_enabled = gc.isenabled()
        _holders += 1
        gc.disable()
        self._busy = busy
        self._ticks = 0
        self._released = False
        self._timer = QTimer(self)
        self._timer.setInterval(YOUNG_EVERY_MS)
        self._timer.timeout.connect(self.collect_if_idle)
        self._timer.start()

    def collect_if_idle(self) -> None:
        if self._busy():
            return
        self._ticks += 1
        gc.collect(2 if self._ticks % FULL_EVERY == 0 else 1)

    def release(self) -> None:
        """The controller is going away: automatic collection comes back with the last one."""
        global _holders
        if self._released:
            return
        self._released = True
        self._timer.stop()
        _holders -= 1
        if _holders == 0 and _was_enabled:
            gc.collect()
            gc.enable()
