"""Can Qt open a window here? Checked before the QApplication exists, without importing Qt.

Qt aborts the process (SIGABRT, often a core dump) when its platform plugin cannot load: no
display, or a missing system library such as ``libxcb-cursor0`` (needed by the xcb plugin since
Qt 6.5). ``problem()`` finds those cases first and ``message(problem)`` says what is missing and
the one-line install for Debian/Ubuntu, Fedora and macOS. Linux only: on macOS and Windows the
native plugin ships with PySide6.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

EXIT_NO_DISPLAY = 3

# soname -> (Debian/Ubuntu package, Fedora package). The libraries PySide6's Qt 6 loads for a
# window on Linux: QtGui's own (libQt6Gui.so.6's NEEDED entries) and the xcb plugin's
# (libqxcb.so and libQt6XcbQpa.so.6), as `readelf -d` lists them for PySide6 6.6-6.11.
GUI_LIBS: dict[str, tuple[str, str]] = {
    "libEGL.so.1": ("libegl1", "mesa-libEGL"),
    "libGL.so.1": ("libgl1", "mesa-libGL"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libz.so.1": ("zlib1g", "zlib"),
}
XCB_LIBS: dict[str, tuple[str, str]] = {
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
}
ALL_LIBS = {**GUI_LIBS, **XCB_LIBS}
# Platforms that need no display server (Qt's own list of plugins in PySide6's wheel).
HEADLESS = {"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb", "vkkhrdisplay"}


def debian_line(libs=ALL_LIBS) -> str:
    return "sudo apt-get install -y " + " ".join(_unique(ALL_LIBS[s][0] for s in libs))


def fedora_line(libs=ALL_LIBS) -> str:
    return "sudo dnf install -y " + " ".join(_unique(ALL_LIBS[s][1] for s in libs))


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


@dataclass
class Problem:
    """Why Qt could not start: the platform(s) tried, missing libraries, no display."""

    platform: str
    missing: list[str] = field(default_factory=list)  # sonames
    no_display: str = ""  # why there is no display to connect to, or ""
    import_error: str = ""  # PySide6 itself failed to import (a QtGui library is missing)


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def _x_display_reachable(display: str) -> bool:
    """Whether an X server answers at ``display`` (libxcb's own connect, closed at once)."""
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return True  # reported as a missing library instead
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    conn = xcb.xcb_connect(display.encode(), None)
    try:
        return xcb.xcb_connection_has_error(conn) == 0
    finally:
        xcb.xcb_disconnect(conn)


def candidates(env: Mapping[str, str]) -> list[str]:
    """The platform plugins Qt will try, in order (``QT_QPA_PLATFORM`` may list several)."""
    asked = env.get("QT_QPA_PLATFORM", "").strip()
    if asked:
        return [p.split(":")[0].strip().lower() for p in asked.split(";") if p.strip()]
    if env.get("XDG_SESSION_TYPE") == "wayland" and env.get("WAYLAND_DISPLAY"):
        return ["wayland", "xcb"]
    return ["xcb"]


def problem(env: Mapping[str, str] | None = None, *, system: str | None = None,
            loadable: Callable[[str], bool] = _loadable,
            display_reachable: Callable[[str], bool] = _x_display_reachable) -> Problem | None:
    """None when Qt can start a window here; else what stands in the way.

    ``env``, ``system``, ``loadable`` and ``display_reachable`` default to this process's
    environment, ``sys.platform``, ctypes and libxcb; tests pass their own.
    """
    env = os.environ if env is None else env
    system = sys.platform if system is None else system
    if not system.startswith("linux"):
        return None
    found = None
    for platform in candidates(env):
        if platform in HEADLESS:
            return None
        if platform == "wayland":
            if env.get("WAYLAND_DISPLAY"):
                return None  # Qt's wayland plugin; Qt falls back to the next platform itself
            found = found or Problem("wayland", no_display="WAYLAND_DISPLAY is not set")
        elif platform == "xcb":
            found = _xcb_problem(env, loadable, display_reachable)
            if found is None:
                return None
        else:
            return None  # a platform we know nothing about: let Qt say
    return found


def _xcb_problem(env, loadable, display_reachable) -> Problem | None:
    found = Problem(platform="xcb")
    found.missing = [s for s in ALL_LIBS if not loadable(s)]
    display = env.get("DISPLAY", "")
    if not display:
        found.no_display = "DISPLAY is not set (no X11 or Wayland session to open a window in)"
    elif "libxcb.so.1" not in found.missing and not display_reachable(display):
        found.no_display = f"no X server answers at DISPLAY={display}"
    return found if (found.missing or found.no_display) else None


def problem_from_import_error(e: ImportError) -> Problem:
    """PySide6 failed to import: QtGui's shared libraries are not all installed."""
    text = str(e)
    missing = [s for s in re.findall(r"(lib[\w.+-]+\.so[.\d]*)", text) if s in ALL_LIBS]
    return Problem(platform=os.environ.get("QT_QPA_PLATFORM", "") or "xcb", missing=missing,
                   import_error=text)


def message(p: Problem) -> str:
    """The text printed instead of Qt's abort: what is missing, how to install it, what else."""
    lines = ["gradstep: cannot open a window: "
             + ("Qt's libraries could not be loaded" if p.import_error else
                f"Qt's '{p.platform}' platform plugin cannot start")]
    if p.import_error:
        lines.append(f"  import PySide6: {p.import_error}")
    if p.missing:
        lines.append("  missing system libraries: " + ", ".join(p.missing))
    if p.no_display:
        lines.append(f"  no display: {p.no_display}")
    if p.missing or p.import_error:
        libs = p.missing or list(ALL_LIBS)
        lines += [
            "Install them:",
            f"  Debian/Ubuntu: {debian_line(libs)}",
            f"  Fedora:        {fedora_line(libs)}",
            ("  macOS:         nothing to install: Qt uses Cocoa (reinstall PySide6 if it fails: "
             "python3 -m pip install --force-reinstall PySide6-Essentials)"),
        ]
    if p.no_display:
        lines += [
            "Open gradstep in a desktop session (or over `ssh -X`), or without a window:",
            "  gradstep run FILE                 runs a file headless and prints its state",
            "  QT_QPA_PLATFORM=offscreen gradstep --smoke-test   (CI: no display needed)",
        ]
    return "\n".join(lines)
