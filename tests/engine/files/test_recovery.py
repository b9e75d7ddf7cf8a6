"""Autosave to the recovery folder and offering files back after a crash."""

import subprocess
import sys
from pathlib import Path

import pytest

import engine.files as F
from engine.files import recovery

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    folder = tmp_path / "recovery"
    monkeypatch.setenv(recovery.ENV_VAR, str(folder))
    return folder


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def crashed_autosave(folder, slot, title, saved_at):
    """An autosave as a session that has since crashed would have left it."""
    gf = F.GraphFile(script="x = 1\n", title=title, metadata={
        recovery.METADATA_KEY: {"source_path": f"/home/u/{title}.gstep", "saved_at": saved_at,
                                "pid": dead_pid()}})
    folder.mkdir(exist_ok=True)
    F.save(folder / f"{slot}.gstep", gf)


def test_the_env_var_chooses_the_folder(folder):
    assert recovery.recovery_dir() == folder


def test_the_default_folder_is_per_user_data(monkeypatch, tmp_path):
    monkeypatch.delenv(recovery.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert recovery.recovery_dir() == tmp_path / "gradstep" / "recovery"


def test_autosave_is_not_offered_while_its_session_runs(folder):
    gf = F.GraphFile(script="y = 2\n", title="mine", metadata={"keep": 1})
    path = recovery.autosave(gf, slot="w1", source_path="/tmp/mine.gstep")
    assert path.parent == folder and path.name == "w1.gstep"
    assert gf.metadata == {"keep": 1}  # the session's own file is not touched
    assert recovery.list_recovered() == []
    (entry,) = recovery.list_recovered(include_running=True)
    assert (entry.slot, entry.title, entry.source_path) == ("w1", "mine", "/tmp/mine.gstep")
    assert recovery.recover(entry) == gf


def test_autosaves_of_crashed_sessions_are_offered_newest_first(folder):
    crashed_autosave(folder, "a", "older", 100.0)
    crashed_autosave(folder, "b", "newer", 200.0)
    entries = recovery.list_recovered()
    assert [e.title for e in entries] == ["newer", "older"]
    assert entries[0].source_path == "/home/u/newer.gstep"
    gf = recovery.recover(entries[0])
    assert recovery.METADATA_KEY not in gf.metadata and gf.title == "newer"


def test_a_clean_close_discards_the_autosave(folder):
    recovery.autosave(F.GraphFile(script=""), slot="w2")
    recovery.discard("w2")
    recovery.discard("w2")  # twice is fine
    assert recovery.list_recovered(include_running=True) == []


def test_a_damaged_autosave_is_listed_with_its_error_not_raised(folder):
    folder.mkdir()
    (folder / "broken.gstep").write_text('{"format": "gradstep", "vers')
    (entry,) = recovery.list_recovered()
    assert entry.slot == "broken" and "truncated" in entry.error


def test_temp_files_of_an_interrupted_autosave_are_not_offered(folder):
    crashed_autosave(folder, "a", "kept", 1.0)
    (folder / ".a.gstep.x1y2.tmp").write_text("{")
    assert [e.title for e in recovery.list_recovered()] == ["kept"]


def test_no_folder_means_nothing_to_recover(folder):
    assert recovery.list_recovered() == []


@pytest.mark.parametrize("slot", ["../escape", "", "a/b", "x" * 65])
def test_slot_names_cannot_leave_the_folder(folder, slot):
    with pytest.raises(ValueError):
        recovery.autosave(F.GraphFile(), slot=slot)
