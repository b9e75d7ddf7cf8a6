"""load/save on disk: atomic replacement (even when the writer is killed), .py files, limits."""

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import engine.files as F

ROOT = Path(__file__).resolve().parents[3]


def sample(script="x = 1\n", title="sample"):
    return F.GraphFile(script=script, title=title, breakpoints=[F.Breakpoint(1, "x > 0")],
                       notes={1: "one"})


def test_save_then_load_gives_the_same_file(tmp_path):
    path = tmp_path / "a.gstep"
    gf = sample()
    F.save(path, gf)
    assert F.load(path) == gf
    assert path.read_text(encoding="utf-8") == F.dumps(gf)


def test_save_replaces_and_leaves_no_temporary_files(tmp_path):
    path = tmp_path / "a.gstep"
    F.save(path, sample(title="old"))
    F.save(path, sample(title="new"))
    assert F.load(path).title == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gstep"]


def test_save_keeps_the_old_files_permissions(tmp_path):
    path = tmp_path / "a.gstep"
    F.save(path, sample())
    os.chmod(path, 0o640)
    F.save(path, sample(title="again"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_a_new_file_gets_ordinary_permissions_not_the_temp_files_private_ones(tmp_path):
    path = tmp_path / "new.gstep"
    F.save(path, sample())
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask


def test_a_failed_save_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "a.gstep"
    F.save(path, sample(title="old"))

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(F.io.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        F.save(path, sample(title="new"))
    monkeypatch.undo()
    assert F.load(path).title == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gstep"]


# The child saves a big file; the patched step tells the parent (one line on stdout) when it
# has got there, then waits for input that never comes. The parent SIGKILLs it right there.
CHILD = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    import engine.files as F
    from engine.files import io as fio

    where = sys.argv[2]

    def stop_here():
        os.write(1, b"stopped " + where.encode() + b"\\n")
        sys.stdin.read()

    if where == "mid-write":
        chunks = fio._chunks
        def chunks_then_stop(data):
            it = chunks(data)
            yield next(it)
            stop_here()
            yield from it
        fio._chunks = chunks_then_stop
    else:
        replace = os.replace
        def replace_after_stop(src, dst):
            stop_here()
            replace(src, dst)
        fio.os.replace = replace_after_stop

    big = np.arange(1_000_000, dtype=np.float64)
    gf = F.GraphFile(script="new = 1\\n", title="new", state=F.SavedState(1, {{
        "big": F.SavedTensor(big)}}))
    F.save(sys.argv[1], gf)
""")


@pytest.mark.parametrize("where", ["mid-write", "before-replace"])
def test_killing_the_writer_mid_save_never_damages_the_old_file(tmp_path, where):
    path = tmp_path / "lesson.gstep"
    old = sample(title="old")
    F.save(path, old)
    old_bytes = path.read_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path), where],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = child.stdout.readline()
        assert line == f"stopped {where}\n".encode(), child.stderr.read().decode()
        temps = [p for p in tmp_path.iterdir() if p.name != path.name]
        assert len(temps) == 1 and temps[0].stat().st_size >= 1 << 20  # really mid-save
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdin.close()
        child.stdout.close()
        child.stderr.close()

    assert path.read_bytes() == old_bytes
    assert F.load(path) == old
    # the half-written temp file is hidden, has no .gstep suffix, and is not a valid file
    (temp,) = [p for p in tmp_path.iterdir() if p.name != path.name]
    assert temp.name.startswith(".lesson.gstep.") and temp.suffix == ".tmp"
    assert list(tmp_path.glob("*.gstep")) == [path]
    if where == "mid-write":
        with pytest.raises(F.GraphFileError):
            F.loads(temp.read_bytes())
    # the next save of that file cleans the crashed writer's leftover, and only that
    unrelated = tmp_path / ".other.gstep.999999999.abc.tmp"
    unrelated.write_bytes(b"not ours")
    F.save(path, sample(title="after"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [unrelated.name, path.name]


def test_a_temporary_file_of_a_running_writer_is_kept(tmp_path):
    path = tmp_path / "lesson.gstep"
    ours = tmp_path / f".lesson.gstep.{os.getpid()}.abc.tmp"  # this process is running
    ours.write_bytes(b"half")
    assert F.io.remove_interrupted_writes(path) == 0 and ours.exists()


def test_the_recovery_listing_clears_autosaves_cut_short(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADSTEP_RECOVERY_DIR", str(tmp_path))
    dead_pid = 2**22 + 12345  # above Linux's default pid_max: no such process
    leftover = tmp_path / f".session-{dead_pid}.gstep.{dead_pid}.x1y2.tmp"
    leftover.write_bytes(b"\0" * 1000)
    assert F.recovery.list_recovered() == []
    assert not leftover.exists()


def test_opening_a_python_script(tmp_path):
    path = tmp_path / "gradients.py"
    source = "import torch\nx = torch.ones(2, requires_grad=True)\n"
    path.write_text(source, encoding="utf-8")
    gf = F.load(path)
    assert gf.script == source
    assert gf.title == "gradients.py"
    assert gf.breakpoints == [] and gf.notes == {} and gf.state is None
    assert gf.settings == F.Settings(seed=0, limits={})


def test_a_python_script_is_never_parsed_as_json_nor_run(tmp_path):
    path = tmp_path / "evil.py"
    path.write_text('{"format": "gradstep"}\nraise SystemExit(3)\n', encoding="utf-8")
    assert F.load(path).script.startswith('{"format"')


def test_saving_to_a_py_path_writes_just_the_script(tmp_path):
    path = tmp_path / "out.py"
    F.save(path, sample(script="y = 2\n"))
    assert path.read_text() == "y = 2\n"


def test_a_python_script_in_utf16_is_refused(tmp_path):
    path = tmp_path / "s.py"
    path.write_bytes("x = 1\n".encode("utf-16"))
    with pytest.raises(F.GraphFileError, match="UTF-16"):
        F.load(path)


def test_files_over_the_size_limit_are_refused_before_reading(tmp_path):
    path = tmp_path / "big.gstep"
    F.save(path, sample(script="x = 1\n" * 1000))
    limits = F.ReadLimits(max_file_bytes=1000)
    with pytest.raises(F.GraphFileError) as info:
        F.load(path, limits=limits)
    assert "limit is 1000" in str(info.value) and info.value.filename == str(path)


def test_the_total_array_budget_spans_the_whole_file():
    gf = F.GraphFile(state=F.SavedState(0, {
        name: F.SavedTensor(np.zeros(600, np.float32)) for name in ("a", "b")}))
    text = F.dumps(gf)
    assert F.loads(text, limits=F.ReadLimits(max_total_elements=1200)) == gf
    with pytest.raises(F.GraphFileError) as info:
        F.loads(text, limits=F.ReadLimits(max_total_elements=1000))
    assert info.value.field == "state.tensors.b.value"


def test_an_overlong_script_is_refused():
    text = F.dumps(F.GraphFile(script="#" * 50))
    with pytest.raises(F.GraphFileError) as info:
        F.loads(text, limits=F.ReadLimits(max_script_chars=49))
    assert info.value.field == "script"


@pytest.mark.parametrize("make, fragment", [
    (lambda d: d / "missing.gstep", "no such file"),
    (lambda d: d, "folder"),
])
def test_unreadable_paths_give_graph_file_errors(tmp_path, make, fragment):
    with pytest.raises(F.GraphFileError, match=fragment):
        F.load(make(tmp_path))


def test_notes_and_breakpoints_on_deleted_lines_do_not_block_saving(tmp_path):
    # the user deleted lines 2-3 of a teacher's file: their notes and breakpoints point nowhere
    path = tmp_path / "a.gstep"
    gf = F.GraphFile(script="a = 1\n", notes={1: "kept", 3: "gone"},
                     breakpoints=[F.Breakpoint(2), F.Breakpoint(1), F.Breakpoint(1, "a > 0")])
    F.save(path, gf)
    again = F.load(path)
    assert again.notes == {1: "kept"}
    assert again.breakpoints == [F.Breakpoint(1)]


def test_a_graph_file_that_would_not_load_back_is_not_written(tmp_path):
    path = tmp_path / "a.gstep"
    F.save(path, sample(title="old"))
    broken = sample(title="new")
    broken.view.zoom = -1.0
    with pytest.raises(F.GraphFileError) as info:
        F.save(path, broken)
    assert info.value.field == "view.zoom"
    assert F.load(path).title == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gstep"]


def test_saving_through_a_symlink_replaces_its_target(tmp_path):
    target = tmp_path / "real.gstep"
    link = tmp_path / "link.gstep"
    F.save(target, sample(title="old"))
    link.symlink_to(target)
    F.save(link, sample(title="new"))
    assert link.is_symlink() and F.load(target).title == "new"


def test_a_cleared_condition_is_saved_as_no_condition(tmp_path):
    path = tmp_path / "a.gstep"
    F.save(path, F.GraphFile(script="a = 1\n", breakpoints=[F.Breakpoint(1, "")]))
    assert F.load(path).breakpoints == [F.Breakpoint(1, None)]


def test_loading_runs_nothing_in_the_file(tmp_path):
    marker = tmp_path / "ran"
    hostile = f"open({str(marker)!r}, 'w').write('x')\n"
    for name in ("hostile.gstep", "hostile.py"):
        path = tmp_path / name
        F.save(path, F.GraphFile(script=hostile, title=hostile, notes={1: hostile},
                                 metadata={"run": hostile}))
        assert F.load(path).script == hostile
    assert not marker.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_fifo_named_like_a_graph_file_is_refused_at_once(tmp_path):
    # A plain open() of a FIFO waits for a writer forever: the load must not block.
    path = tmp_path / "x.gstep"
    os.mkfifo(path)
    with pytest.raises(F.GraphFileError, match="named pipe") as info:
        F.load(path)
    assert info.value.filename == str(path)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(F.GraphFileError, match="folder"):
        F.load(tmp_path)


def test_the_saver_refuses_a_file_the_loader_would_refuse_and_keeps_the_old_one(tmp_path):
    path = tmp_path / "big.gstep"
    F.save(path, F.GraphFile(script="x = 1\n"))
    before = path.read_bytes()
    # Each array is within the element limits, but the text is over the byte limit.
    huge = "# " + "a" * (F.DEFAULT_LIMITS.max_script_chars - 10) + "\n"
    notes = {line: huge for line in range(1, 80)}
    too_big = F.GraphFile(script="x = 1\n" * 80, notes=notes)
    with pytest.raises(F.GraphFileError, match="over the .*-byte limit"):
        F.save(path, too_big)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["big.gstep"]  # no temp file left
