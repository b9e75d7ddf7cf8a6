"""The headless CLI: what it prints and the exit codes a shell user expects."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]

SEED_DEMO = """\
import torch as T
t1 = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
t2 = t1 * t1 + 1
t2.retain_grad()
z = t2.sum()
z.backward()
"""

TRAINING = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1)
for i in range(30):
    opt.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    opt.step()
"""

NAN_FROM_LOG = """\
import torch
p = torch.tensor([0.5, 0.0], requires_grad=True)
logp = torch.log(p)
loss = -(logp * torch.tensor([1.0, 0.0])).sum()
loss.backward()
"""

NON_SCALAR = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.backward()
"""


@pytest.fixture
def script(tmp_path):
    def write(text, name="script.py"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def test_run_prints_tensors_with_values_grads_and_flags(script, capsys):
    path = script(SEED_DEMO)
    assert main(["run", path]) == 0
    out = capsys.readouterr().out
    assert f"{path}: finished" in out
    assert "backward calls: 1" in out
    assert "t1: torch.float32 [3]  leaf requires_grad" in out
    assert "grad  [2., 4., 6.]" in out
    assert "grad_fn=AddBackward0" in out and "retains_grad" in out


def test_run_json_has_optimizer_state_and_loss_per_iteration(script, capsys):
    path = script(TRAINING)
    assert main(["run", path, "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["status"] == "finished"
    assert rep["counters"]["step"] == 30
    assert set(rep["optimizers"]["opt"]["w"]) == {"step", "exp_avg", "exp_avg_sq"}
    losses = [item["loss"] for item in rep["losses"]]
    assert [item["iteration"] for item in rep["losses"]] == list(range(30))
    assert losses[0] == pytest.approx(5.0) and losses[-1] < losses[0]


def test_run_a_number_of_iterations(script, capsys):
    path = script(TRAINING)
    assert main(["run", path, "--iterations", "5", "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["status"] == "paused"
    assert rep["counters"]["step"] == 5
    assert rep["stopped_at"]["iteration"] == 5


def test_break_on_nan_reports_where(script, capsys):
    path = script(NAN_FROM_LOG)
    assert main(["run", path, "--break-on", "nan", "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["stopped_at"]["line"] == 4
    assert "logp" in rep["stopped_at"]["reason"]
    logp = next(t for t in rep["tensors"] if t["name"] == "logp")
    assert logp["value"][1] == "-inf"


def test_script_error_exits_1_with_file_line_col_and_explanation(script, capsys):
    path = script(NON_SCALAR)
    assert main(["run", path]) == 1
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:4:1: runtime: ")
    assert "grad can be implicitly created only for scalar outputs" in first
    assert "y has 3 elements" in err
    assert "fix: y.sum().backward()" in err


def test_missing_file_and_usage_errors_exit_2(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main([]) == 2
    assert main(["run"]) == 2
    assert main(["export", str(tmp_path / "x.py")]) == 2  # neither --dot nor --trace


def test_malformed_graph_file_exits_2(script, capsys):
    path = script('{"format": "gradstep", "version": ', name="bad.gstep")
    assert main(["run", path]) == 2
    assert "bad.gstep" in capsys.readouterr().err


def test_graph_file_runs_with_its_seed(tmp_path, capsys):
    from engine import files

    gf = files.GraphFile(script="import torch\nw = torch.randn(3)\n",
                         settings=files.Settings(seed=7))
    path = tmp_path / "seeded.gstep"
    files.save(path, gf)
    assert main(["run", str(path), "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)["tensors"][0]["value"]
    assert main(["run", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["tensors"][0]["value"] == first


def test_export_trace_writes_the_session_events(script, tmp_path):
    path = script(SEED_DEMO)
    out = tmp_path / "trace.json"
    assert main(["export", path, "--trace", str(out)]) == 0
    doc = json.loads(out.read_text())
    kinds = [e["kind"] for e in doc["events"]]
    assert kinds[0] == "running" and "finished" in kinds
    finished = next(e for e in doc["events"] if e["kind"] == "finished")
    grads = {c["name"] for c in finished["diff"]["tensors"] if c["field"] == "grad"}
    assert {"t1", "t2"} <= grads


def test_export_dot(script, tmp_path):
    import engine.graph as graph

    if not hasattr(graph, "to_dot"):
        pytest.skip("engine.graph.to_dot is not there yet")
    path = script(SEED_DEMO)
    out = tmp_path / "graph.dot"
    assert main(["export", path, "--dot", str(out)]) == 0
    text = out.read_text()
    assert text.lstrip().startswith("digraph") and "MulBackward0" in text


def test_python_dash_m_engine_cli(script):
    path = script(SEED_DEMO)
    done = subprocess.run([sys.executable, "-m", "engine.cli", "run", path],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "t1" in done.stdout
    done = subprocess.run([sys.executable, "-m", "engine.cli", "run", path + ".missing"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2


def test_progress_bar_on_a_terminal_only(script, capsys, monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    path = script(TRAINING)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", path, "--iterations", "20"]) == 0
    assert terminal.getvalue().endswith(f"[{'#' * 30}] 20/20\n")
    assert "\r[" in terminal.getvalue()
    monkeypatch.undo()
    assert main(["run", path, "--iterations", "20"]) == 0
    assert "20/20" not in capsys.readouterr().err  # not a terminal: no bar


EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.gstep"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_runs_from_the_cli(example, capsys):
    from engine import files

    expected = files.load(example).metadata
    code = main(["run", str(example), "--format", "json"])
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    if "expect_error" in expected:
        assert code == 1
        assert rep["error"]["line"] == expected["expect_error_line"]
        assert rep["error"]["message"].startswith(expected["expect_error"])
        assert rep["explanation"]["fixes"]  # a classic error, explained with its fixes
        assert captured.err.startswith(f"{example}:{expected['expect_error_line']}:")
    else:
        assert code == 0, captured.err
        assert rep["status"] == "finished"


def test_run_says_what_the_figures_would_have_drawn(tmp_path, capsys):
    path = tmp_path / "plot.py"
    path.write_text("import matplotlib.pyplot as plt\n"
                    "losses = [0.69 - 0.68 * i / 99 for i in range(100)]\n"
                    "plt.plot(losses, label='loss')\n"
                    "plt.title('Training loss')\n"
                    "plt.show()\n")
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert ("  figure 1: 1 axes; line 'loss' (100 points, y from 0.69 to 0.01); "
            "title 'Training loss'; shown at line 5") in out
    assert main(["run", str(path), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    (fig,) = rep["figures"]
    (line,) = fig["axes"][0]["artists"]
    assert fig["number"] == 1 and fig["line"] == 5 and fig["axes"][0]["title"] == "Training loss"
    assert line["kind"] == "line" and line["label"] == "loss" and len(line["y"]) == 100


FAILS_AT_ITERATION_12 = """\
import torch
w = torch.ones(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for i in range(30):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
    if i == 12:
        raise ValueError("boom")
"""


def test_an_error_after_a_cut_short_progress_bar_starts_its_own_line(script, monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", script(FAILS_AT_ITERATION_12), "--iterations", "20"]) == 1
    text = terminal.getvalue()
    assert "\r[" in text and "/20\n" in text
    error_line = next(line for line in text.split("\n") if "ValueError: boom" in line)
    assert not error_line.startswith("\r[")  # not glued to the bar
    assert text.endswith("\n")


def test_top_level_help_lists_every_subcommand(capsys):
    from engine.cli import COMMANDS, commands_epilog

    assert set(COMMANDS) == {"run", "record", "export"}
    epilog = commands_epilog()
    for name, text in COMMANDS.items():
        assert f"gradstep {name}" in epilog and text in epilog
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(COMMANDS[name].split(" (")[0][:40] in " ".join(out.split()) for name in COMMANDS)


def test_a_long_run_says_it_is_still_running_and_what_ends_it(script):
    import io

    from engine import cli
    from engine.session import Session

    session = Session("x = 1\n", filename="x.py")
    session.continue_()
    stream = io.StringIO()
    cli._StillRunning(session, stream, 5_000_000).note(3.0)
    note = stream.getvalue()
    assert note.startswith("gradstep run: still running after 3 s, ")
    assert "5000000 (max_statements" in note and note.endswith("\n")


def test_notes_stop_before_the_report_is_printed(script, capsys, monkeypatch):
    from engine import cli

    notes = []
    monkeypatch.setattr(cli._StillRunning, "note", lambda self, s: notes.append(s))
    monkeypatch.setattr(cli, "_NOTE_AFTER", 0.0)
    assert main(["run", script(SEED_DEMO)]) == 0
    assert not any(t.name == "gradstep-still-running" for t in threading.enumerate())


def test_a_class_derived_from_object_runs(script, capsys):
    path = script("class Meter(object):\n    def __init__(self):\n        super().__init__()\n"
                  "        self.total = 2.0\nm = Meter()\nprint(m.total)\n")
    assert main(["run", path]) == 0, capsys.readouterr().err
    assert "2.0" in capsys.readouterr().out


def test_ctrl_c_ends_the_run_with_a_line_not_a_traceback(script, capsys, monkeypatch):
    from engine import cli

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_drive", interrupted)
    assert main(["run", script(SEED_DEMO)]) == cli.EXIT_INTERRUPTED
    assert capsys.readouterr().err == "gradstep run: interrupted\n"


def test_a_reader_that_leaves_early_ends_the_run_quietly(script):
    """``gradstep run ... | head``: the pipe's reader is gone; no BrokenPipeError traceback."""
    import os

    path = script("import torch\nfor i in range(2000):\n    print('line', i)\n")
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write: every write fails
    try:
        done = subprocess.run([sys.executable, "-m", "engine.cli", "run", path],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              timeout=300)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 141


@pytest.mark.parametrize("argv", [["nosuch"], ["--smoke-test", "nosuch.gstep"]])
def test_a_mistyped_command_or_missing_file_is_said_before_any_window(argv, capsys):
    import io

    from engine.cli import EXIT_USAGE, check_window_argument

    err = io.StringIO()
    assert check_window_argument(argv, err) == EXIT_USAGE
    name = argv[-1]
    assert err.getvalue().startswith(f"gradstep: no such file or command: {name} ")


def test_gradstep_with_a_mistyped_command_says_so_and_opens_no_window():
    """The real entry point (``python -m app``): exit 2 with the message, and Qt never loads."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys, app.__main__ as m; code = m.main(['nosuch']); "
         "print('PySide6' in sys.modules); sys.exit(code)"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("gradstep: no such file or command: nosuch "), done.stderr
    assert done.stdout.strip() == "False"


def test_the_window_opens_for_an_existing_file_or_no_argument(script):
    from engine.cli import window_argument_problem

    assert window_argument_problem([script(SEED_DEMO)]) is None
    assert window_argument_problem([]) is None
    assert window_argument_problem(["--smoke-test"]) is None


def test_export_dot_of_a_recording_writes_its_recorded_graph(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    import engine.record as record

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x.exp() * 3).sum()
    path = tmp_path / "rec.gstep"
    record.record_backward(loss, path, names={"x": x, "loss": loss})
    out = tmp_path / "rec.dot"
    assert main(["export", str(path), "--dot", str(out)]) == 0, capsys.readouterr().err
    text = out.read_text()
    for node in ("ExpBackward0", "MulBackward0", "SumBackward0", "AccumulateGrad"):
        assert node in text
    assert main(["export", str(path), "--trace", str(tmp_path / "t.json")]) == 2
    assert "--trace does not apply to a recording" in capsys.readouterr().err
