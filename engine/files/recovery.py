"""Autosave to a recovery folder, and offering the autosaved files back after a crash.

Each running session autosaves into its own slot (``<slot>.gstep``; the default slot is the
process id) and discards it when it closes normally. Whatever is left in the folder belongs to a
session that did not close: a crash. Files whose writer is still running (another window) are not
offered. The folder is ``$GRADSTEP_RECOVERY_DIR`` if set (tests use this), else the platform's
per-user data folder. Each autosave records where it came from in ``metadata["gradstep.recovery"]``;
``recover`` removes that again.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import GraphFileError
from .format import GraphFile
from .io import load, remove_interrupted_writes, save
from .processes import process_running

ENV_VAR = "GRADSTEP_RECOVERY_DIR"
METADATA_KEY = "gradstep.recovery"
SUFFIX = ".gstep"
_SLOT = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")


def recovery_dir() -> Path:
    """The recovery folder (not created here)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "gradstep" / "recovery"


def default_slot() -> str:
    """This process's slot name."""
    return f"session-{os.getpid()}"


def _slot_path(slot: str) -> Path:
    if not _SLOT.match(slot):
        raise ValueError(f"a recovery slot is 1-64 letters, digits, '_' or '-', not {slot!r}")
    return recovery_dir() / f"{slot}{SUFFIX}"


def autosave(graph_file: GraphFile, *, slot: str | None = None,
             source_path: str | os.PathLike | None = None) -> Path:
    """Save a copy of ``graph_file`` into the recovery folder (atomically), and return its path.

    Parameters
    ----------
    graph_file : GraphFile
        The session's current contents; it is not modified.
    slot : str, optional
        The session's slot; one file per slot, replaced on every autosave.
    source_path : path, optional
        The file the user is editing, to offer recovering it under its own name.
    """
    path = _slot_path(default_slot() if slot is None else slot)
    path.parent.mkdir(parents=True, exist_ok=True)
    info = {"source_path": None if source_path is None else str(source_path),
            "saved_at": time.time(), "pid": os.getpid()}
    copy = GraphFile(**{**graph_file.__dict__,
                        "metadata": {**graph_file.metadata, METADATA_KEY: info}})
    save(path, copy)
    return path


def discard(slot: str | None = None) -> None:
    """Remove a slot's autosave (a clean close, or the user declined to recover it)."""
    try:
        _slot_path(default_slot() if slot is None else slot).unlink()
    except FileNotFoundError:
        pass


@dataclass(frozen=True)
class RecoveredFile:
    """An autosave left behind by a session that did not close.

    ``error`` is set (and the other fields may be empty) when the autosave cannot be read.
    """

    path: Path
    slot: str
    title: str = ""
    source_path: str | None = None
    saved_at: float = 0.0
    pid: int | None = None
    error: str | None = None


def _entry(path: Path) -> RecoveredFile:
    slot = path.name[: -len(SUFFIX)]
    try:
        gf = load(path)
    except GraphFileError as e:
        return RecoveredFile(path, slot, error=str(e))
    info = gf.metadata.get(METADATA_KEY)
    info = info if isinstance(info, dict) else {}
    pid = info.get("pid")
    saved_at = info.get("saved_at")
    return RecoveredFile(
        path, slot, gf.title,
        info.get("source_path") if isinstance(info.get("source_path"), str) else None,
        float(saved_at) if isinstance(saved_at, (int, float)) else path.stat().st_mtime,
        pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
    )


def list_recovered(*, include_running: bool = False) -> list[RecoveredFile]:
    """The autosaves to offer back, newest first.

    Parameters
    ----------
    include_running : bool
        Also list autosaves whose session is still running (this process's included).
    """
    folder = recovery_dir()
    if not folder.is_dir():
        return []
    remove_interrupted_writes(folder)  # autosaves cut short by a crash or a kill
    entries = [_entry(p) for p in folder.glob(f"*{SUFFIX}")
               if p.is_file() and not p.name.startswith(".")]
    if not include_running:
        entries = [e for e in entries if e.error is not None or not process_running(e.pid)]
    return sorted(entries, key=lambda e: e.saved_at, reverse=True)


def recover(entry: RecoveredFile) -> GraphFile:
    """Load an autosave as the user's file again (without the recovery bookkeeping).

    Raises
    ------
    GraphFileError
        If the autosave cannot be read.
    """
    gf = load(entry.path)
    gf.metadata = {k: v for k, v in gf.metadata.items() if k != METADATA_KEY}
    return gf
