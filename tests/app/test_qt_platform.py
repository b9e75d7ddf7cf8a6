"""Without a display or Qt's xcb libraries, ``gradstep`` says what is missing and how to install
it, and exits 3, instead of letting Qt abort (app/qt_platform.py)."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import qt_platform
from app.qt_platform import EXIT_NO_DISPLAY, message, problem, problem_from_import_error

ROOT = Path(__file__).resolve().parents[2]


def _all(_soname: str) -> bool:
    return True


def _reachable(_display: str) -> bool:
    return True


def test_gradstep_without_display_prints_the_reason_and_exits_3_instead_of_aborting(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env.update(QT_QPA_PLATFORM="xcb", XDG_CONFIG_HOME=str(tmp_path / "config"),
               GRADSTEP_RECOVERY_DIR=str(tmp_path / "recovery"))
    done = subprocess.run([sys.executable, "-m", "app"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == EXIT_NO_DISPLAY, (done.returncode, done.stderr)  # not -6 (SIGABRT)
    assert done.stderr.startswith("gradstep: cannot open a window: "
                                  "Qt's 'xcb' platform plugin cannot start")
    assert "DISPLAY is not set" in done.stderr
    assert "gradstep run FILE" in done.stderr
    assert "no Qt platform plugin could be initialized" not in done.stderr  # Qt never tried
    assert "Traceback" not in done.stderr


def test_a_missing_xcb_library_names_it_with_the_install_line_of_each_system():
    found = problem({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, system="linux",
                    loadable=lambda s: s != "libxcb-cursor.so.0", display_reachable=_reachable)
    assert found is not None
    assert found.missing == ["libxcb-cursor.so.0"] and found.no_display == ""
    text = message(found)
    assert "missing system libraries: libxcb-cursor.so.0" in text
    assert "Debian/Ubuntu: sudo apt-get install -y libxcb-cursor0\n" in text
    assert "Fedora:        sudo dnf install -y xcb-util-cursor\n" in text
    assert "macOS:" in text
    assert "no display" not in text


def test_an_x_server_that_does_not_answer_is_reported():
    found = problem({"DISPLAY": ":7"}, system="linux", loadable=_all,
                    display_reachable=lambda d: d != ":7")
    assert found is not None and found.missing == []
    assert "no X server answers at DISPLAY=:7" in message(found)
    assert "apt-get" not in message(found)


def test_nothing_is_reported_where_qt_can_start():
    assert problem({"DISPLAY": ":0"}, system="linux", loadable=_all,
                   display_reachable=_reachable) is None
    def nothing(_soname: str) -> bool:  # offscreen needs neither xcb nor a display
        return False

    assert problem({"QT_QPA_PLATFORM": "offscreen"}, system="linux", loadable=nothing) is None
    assert problem({"QT_QPA_PLATFORM": "xcb;offscreen"}, system="linux", loadable=nothing,
                   display_reachable=_reachable) is None
    assert problem({}, system="darwin", loadable=nothing) is None
    assert problem({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"},
                   system="linux", loadable=nothing) is None


def test_wayland_without_its_socket_is_reported():
    found = problem({"QT_QPA_PLATFORM": "wayland"}, system="linux", loadable=_all)
    assert found is not None and found.platform == "wayland"
    assert "WAYLAND_DISPLAY is not set" in message(found)


def test_an_import_error_of_qtgui_names_the_library():
    err = ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")
    found = problem_from_import_error(err)
    assert found.missing == ["libEGL.so.1"]
    text = message(found)
    assert "Qt's libraries could not be loaded" in text
    assert "sudo apt-get install -y libegl1\n" in text
    assert "sudo dnf install -y mesa-libEGL\n" in text


@pytest.mark.skipif(ctypes.util.find_library("xcb") is None, reason="libxcb is not installed")
def test_the_real_display_probe_finds_no_server_on_an_unused_display():
    assert qt_platform._x_display_reachable(":97") is False


def test_the_readme_gives_the_full_debian_line():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert qt_platform.debian_line() in readme
