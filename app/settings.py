"""What the window remembers between launches (QSettings): layout, recent files, theme."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

MAX_RECENT = 10


def app_settings() -> QSettings:
    """The user's settings (organisation "gradstep", application "gradstep")."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gradstep", "gradstep")


class WindowSettings:
    """Typed access to the few values the window keeps."""

    def __init__(self, settings: QSettings) -> None:
        self.qsettings = settings

    def recent_files(self) -> list[str]:
        value = self.qsettings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path: str) -> list[str]:
        path = str(Path(path).resolve())
        files = [p for p in self.recent_files() if p != path]
        files.insert(0, path)
        del files[MAX_RECENT:]
        self.qsettings.setValue("recent_files", files)
        return files

    def dark_theme(self) -> bool:
        return str(self.qsettings.value("dark_theme", "false")).lower() == "true"

    def set_dark_theme(self, dark: bool) -> None:
        self.qsettings.setValue("dark_theme", "true" if dark else "false")

    def window_state(self):
        return self.qsettings.value("window/geometry"), self.qsettings.value("window/state")

    def save_window_state(self, geometry, state) -> None:
        self.qsettings.setValue("window/geometry", geometry)
        self.qsettings.setValue("window/state", state)
        self.qsettings.sync()
