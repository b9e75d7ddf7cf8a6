"""Fixtures for the window's tests: an offscreen Qt, isolated settings and recovery folder."""

from __future__ import annotations

import os
import tempfile

# Before anything imports Qt: no display is needed, and nothing touches the user's files.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("GRADSTEP_RECOVERY_DIR", tempfile.mkdtemp(prefix="gradstep-recovery-"))

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture
def settings(tmp_path):
    """A QSettings in a temporary ini file: tests never read or write the user's settings."""
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "gradstep-settings.ini"), QSettings.Format.IniFormat)


def close_window(window) -> None:
    """Tear a window down explicitly: a pyqtgraph widget alive at exit can crash PySide6."""
    from PySide6.QtWidgets import QApplication

    window.ask_before_discarding = False
    window.close()
    window.shutdown()
    window.deleteLater()
    QApplication.processEvents()


@pytest.fixture
def make_window(qtbot, settings):
    """Build MainWindows on demand; each is shut down after the test."""
    from app.main_window import MainWindow

    made = []

    def make(*, open_demo: bool = True):
        window = MainWindow(settings, open_demo=open_demo)
        window.show()
        qtbot.waitExposed(window)
        made.append(window)
        return window

    yield make
    for window in made:
        close_window(window)


@pytest.fixture
def window(make_window, qtbot):
    """The window as a new user sees it: the seed demo, run to its first breakpoint."""
    from tests.app.window_support import wait_idle

    window = make_window()
    qtbot.waitUntil(lambda: window.controller.session is not None)
    wait_idle(qtbot, window)
    return window


@pytest.fixture
def controller(qtbot):
    """A real ``SessionController`` (the panels' tests; files with a fake one define their own)."""
    from app.controller import SessionController

    c = SessionController()
    yield c
    c.shutdown()
    hub = getattr(c, "_gradstep_panels_hub", None)
    if hub is not None:
        hub.own_recorder.detach()
