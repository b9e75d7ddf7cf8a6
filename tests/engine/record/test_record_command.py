"""``gradstep record`` / ``python -m engine.record``: a user's own, unchanged training script is
run with their torch and its first iterations recorded through torch's global hooks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # shared machine: torch's pool spins when the cores are busy

from engine import files
from engine.cli import main as cli_main
from engine.record import (
    METADATA_KEY,
    command,
)

pytestmark = pytest.mark.torch

REPO = Path(__file__).resolve().parents[3]
ORIGINAL_BACKWARD = torch.autograd.backward

# The user's script: nothing in it knows about gradstep. It prints each loss before the step.
SCRIPT = textwrap.dedent('''
    import argparse
    import sys

    import torch
    from torch import nn


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--optimizer", default="sgd")
        parser.add_argument("--fail-at", type=int, default=-1)
        parser.add_argument("--tag", default="")
        args = parser.parse_args()
        print("argv", sys.argv[1:], "tag", args.tag, "main", __name__, flush=True)
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        if args.optimizer == "adam":
            opt = torch.optim.Adam(net.parameters(), lr=0.05, betas=(0.8, 0.99), eps=1e-7,
                                   weight_decay=0.01)
        else:
            opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.001)
        x = torch.randn(8, 3)
        y = torch.randn(8, 2)
        for i in range(10):
            if i == args.fail_at:
                raise ValueError(f"boom at iteration {i}")
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            print(f"loss {i} {loss.item()!r}", flush=True)
            opt.step()
        print("done", flush=True)


    if __name__ == "__main__":
        main()
''')


def _expected(optimizer: str, iterations: int = 3):
    """What torch computes for the script's loop: per iteration the parameters as the forward
    used them, their grads, the loss, and the optimizer's state after the step."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    if optimizer == "adam":
        opt = torch.optim.Adam(net.parameters(), lr=0.05, betas=(0.8, 0.99), eps=1e-7,
                               weight_decay=0.01)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.001)
    x, y = torch.randn(8, 3), torch.randn(8, 2)
    names = [f"net.{n}" for n, _ in net.named_parameters()]
    out = []
    for _ in range(iterations):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        params = {n: (p.detach().clone().numpy(), p.grad.clone().numpy())
                  for n, p in zip(names, net.parameters())}
        opt.step()
        state = {n: {k: (v.clone().numpy() if isinstance(v, torch.Tensor) else v)
                     for k, v in opt.state[p].items()}
                 for n, p in zip(names, net.parameters())}
        out.append((loss.item(), params, state))
    return out


def _record(tmp_path: Path, *options: str, script_args=(), name="train.py"):
    script = tmp_path / name
    script.write_text(SCRIPT)
    output = tmp_path / "run.gstep"
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                       os.environ.get("PYTHONPATH")]))}
    env.pop("RANK", None)
    proc = subprocess.run(
        [sys.executable, "-m", "engine.record", *options, "--output", str(output), str(script),
         *script_args],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    losses = [float(line.split()[2]) for line in proc.stdout.splitlines()
              if line.startswith("loss ")]
    return proc, output, losses


@pytest.fixture(scope="module")
def sgd_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sgd")
    return _record(tmp, "--iterations", "3", script_args=["--tag", "hello world"])


@pytest.fixture(scope="module")
def adam_stop_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adam")
    return _record(tmp, "--iterations", "3", "--stop", script_args=["--optimizer", "adam"])


def _check_iterations(gf, expected, optimizer_type):
    assert [s.iteration for s in gf.recorded.iterations] == list(range(len(expected)))
    for state, (loss, params, opt_state) in zip(gf.recorded.iterations, expected):
        assert state.tensors["loss"].value == np.float32(loss)
        for name, (value, grad) in params.items():
            np.testing.assert_allclose(state.tensors[name].value, value, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(state.tensors[name].grad, grad, rtol=1e-5, atol=1e-7)
        saved = state.optimizers["opt"]  # named as the script's variable
        assert saved.type == optimizer_type
        assert saved.param_groups[0]["params"] == list(params)
        for name, keys in opt_state.items():
            assert set(saved.state[name]) == set(keys), name
            for key, value in keys.items():
                np.testing.assert_allclose(np.asarray(saved.state[name][key]), value,
                                           rtol=1e-5, atol=1e-7, err_msg=f"{name} {key}")


def test_records_three_iterations_and_lets_the_script_go_on(sgd_run):
    proc, output, losses = sgd_run
    assert proc.returncode == 0, proc.stderr
    assert len(losses) == 10 and "done" in proc.stdout.splitlines()  # the script went on
    assert "argv ['--tag', 'hello world'] tag hello world main __main__" in proc.stdout
    gf = files.load(output)
    assert [s.tensors["loss"].value.item() for s in gf.recorded.iterations] == losses[:3]
    assert gf.metadata[METADATA_KEY]["run"]["iterations_requested"] == 3
    assert gf.metadata[METADATA_KEY]["run"]["argv"][1:] == ["--tag", "hello world"]
    # The graph of the last iteration: PyTorch's names, grouped by submodule, with edge grads.
    names = [n.attrs.get("node_name") for n in gf.recorded.nodes if n.kind == "function"]
    assert names.count("AddmmBackward0") == 2 and "MseLossBackward0" in names
    groups = {n.attrs.get("group") for n in gf.recorded.nodes if n.kind == "function"}
    assert {"net.0", "net.1", "net.2"} <= groups
    assert all(n.attrs["executed_index"] is not None for n in gf.recorded.nodes
               if n.kind == "function")
    assert sum(e.grad is not None for e in gf.recorded.edges) >= len(gf.recorded.edges) - 1
    by_label = {n.label: n for n in gf.recorded.nodes if n.kind == "tensor"}
    np.testing.assert_array_equal(  # the last graph's parameters: iteration 2's
        by_label["net.0.weight"].value, gf.recorded.iterations[2].tensors["net.0.weight"].value)
    # What the output says about the file.
    assert "wrote" in proc.stderr and "3 iterations" in proc.stderr
    assert "budget:" in proc.stderr and "cut: nothing" in proc.stderr


def test_sgd_momentum_state_and_hyperparameters_equal_torch(sgd_run):
    _, output, _ = sgd_run
    gf = files.load(output)
    _check_iterations(gf, _expected("sgd"), "SGD")
    group = gf.recorded.iterations[0].optimizers["opt"].param_groups[0]
    assert (group["lr"], group["momentum"], group["weight_decay"]) == (0.1, 0.9, 0.001)


def test_stop_ends_the_script_after_writing_and_adam_state_equals_torch(adam_stop_run):
    proc, output, losses = adam_stop_run
    assert proc.returncode == 0, proc.stderr
    assert len(losses) == 3 and "done" not in proc.stdout
    gf = files.load(output)
    assert [s.tensors["loss"].value.item() for s in gf.recorded.iterations] == losses
    _check_iterations(gf, _expected("adam"), "Adam")
    last = gf.recorded.iterations[-1].optimizers["opt"]
    assert float(np.asarray(last.state["net.0.weight"]["step"])) == 3.0
    group = last.param_groups[0]
    assert (group["lr"], group["betas"], group["eps"], group["weight_decay"]) == \
        (0.05, [0.8, 0.99], 1e-7, 0.01)


def test_a_failing_script_keeps_its_traceback_and_exit_code_and_what_was_recorded(tmp_path):
    proc, output, losses = _record(tmp_path, "--iterations", "3",
                                   script_args=["--fail-at", "2"])
    assert proc.returncode == 1
    assert len(losses) == 2
    err = proc.stderr
    assert err.rstrip().endswith("ValueError: boom at iteration 2")
    tb = err[err.index("Traceback (most recent call last):"):]
    first_frame = next(line for line in tb.splitlines() if line.strip().startswith("File "))
    assert "train.py" in first_frame  # from the script's frames on, as python prints it
    assert "in main" in tb and "raise ValueError" in tb
    assert "2 iterations of 3 asked" in err and "recorded before it are in" in err
    gf = files.load(output)
    assert [s.tensors["loss"].value.item() for s in gf.recorded.iterations] == losses
    assert gf.metadata[METADATA_KEY]["run"]["ended"] == "the script raised ValueError"


def test_gradstep_run_reports_the_recorded_losses(sgd_run, capsys):
    _, output, losses = sgd_run
    assert cli_main(["run", str(output)]) == 0
    text = capsys.readouterr().out
    assert "3 iterations" in text.splitlines()[0]
    lines = text.splitlines()
    start = lines.index("Loss per iteration") + 1
    shown = [tuple(line.split()) for line in lines[start:start + 3]]
    assert shown == [(str(k), repr(v)) for k, v in enumerate(losses[:3])]
    assert "AddmmBackward0" in text


# -- in-process runs (torch is already imported here: faster) -------------------------------------
def _global_hooks() -> list[int]:
    import torch.nn.modules.module as modules
    import torch.optim.optimizer as optimizers

    return [len(modules._global_forward_pre_hooks), len(modules._global_forward_hooks),
            len(optimizers._global_optimizer_pre_hooks),
            len(optimizers._global_optimizer_post_hooks)]


@pytest.fixture
def in_process(tmp_path, monkeypatch):
    """Run ``gradstep record`` (through engine.cli) in this process on a script's text."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANK", raising=False)

    def run(source: str, *options: str, script_args=()):
        script = tmp_path / "user_script.py"
        script.write_text(textwrap.dedent(source))
        before = _global_hooks()
        code = cli_main(["record", *options, str(script), *script_args])
        assert torch.autograd.backward is ORIGINAL_BACKWARD  # every hook taken out
        assert _global_hooks() == before
        return code, tmp_path / "user_script.gstep"
    return run


NO_OPTIMIZER = '''
    import torch
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    for i in range(5):
        loss = (w * w).sum()
        loss.backward()
        with torch.no_grad():
            w -= 0.25 * w.grad
        w.grad = None
        print("loss", i, loss.item())
'''


def test_without_an_optimizer_each_backward_is_an_iteration(in_process, capsys):
    code, output = in_process(NO_OPTIMIZER, "--iterations", "2", "--stop")
    assert code == 0
    out = capsys.readouterr().out
    assert out.count("loss ") == 1  # iteration 2 is complete at its backward: stopped there
    gf = files.load(output)
    assert [s.iteration for s in gf.recorded.iterations] == [0, 1]
    states = gf.recorded.iterations
    np.testing.assert_array_equal(states[0].tensors["w"].value, [1.0, -2.0])
    np.testing.assert_array_equal(states[1].tensors["w"].value, [0.5, -1.0])
    np.testing.assert_array_equal(states[1].tensors["w"].grad, [1.0, -2.0])
    assert states[1].tensors["loss"].value == np.float32(1.25)
    assert states[1].optimizers == {}


def test_a_script_without_backward_says_so(in_process, capsys):
    code, output = in_process("import torch\nprint(torch.ones(2).sum().item())\n")
    assert code == 1 and not output.exists()
    captured = capsys.readouterr()
    assert "2.0" in captured.out
    assert "never called backward()" in captured.err and "no file was written" in captured.err


def test_other_ranks_run_unrecorded(in_process, monkeypatch, capsys):
    monkeypatch.setenv("RANK", "1")
    code, output = in_process(NO_OPTIMIZER, "--iterations", "2")
    assert code == 0 and not output.exists()
    assert capsys.readouterr().out.count("loss ") == 5
    code, output = in_process(NO_OPTIMIZER, "--iterations", "2", "--rank", "1")
    assert code == 0 and output.exists()


def test_sys_exit_codes_pass_through_and_usage_errors(in_process, capsys):
    code, output = in_process(textwrap.dedent(NO_OPTIMIZER) + "import sys\nsys.exit(3)\n")
    assert code == 3 and len(files.load(output).recorded.iterations) == 3  # 3 (the default) of 5
    code, output = in_process("import torch\nx = (\n")
    assert code == 1 and "SyntaxError" in capsys.readouterr().err
    assert cli_main(["record", "--iterations", "0", "x.py"]) == 2
    assert cli_main(["record", "missing.py"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_help_says_there_is_no_sandbox(capsys):
    assert command.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "NO sandbox" in text and "--iterations" in text and "--stop" in text


def test_open_launches_the_window_as_another_process():
    cmd = command._open_command("run.gstep")
    assert cmd[-1] == "run.gstep" and (cmd[1:] == ["-m", "app", "run.gstep"]
                                       or cmd[0].endswith("gradstep"))


ANY_OPTIMIZER = '''
    import sys
    import torch

    def train():
        torch.manual_seed(1)
        layer = torch.nn.Linear(2, 1)
        optim = getattr(torch.optim, sys.argv[1])(layer.parameters(), lr=0.05)
        x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
        for _ in range(4):
            optim.zero_grad()
            layer(x).square().mean().backward()
            optim.step()

    train()
'''


@pytest.mark.parametrize(("name", "keys"), [
    ("RMSprop", {"step", "square_avg"}), ("Adagrad", {"step", "sum"}),
    ("AdamW", {"step", "exp_avg", "exp_avg_sq"}),
])
def test_each_optimizers_state_per_iteration(in_process, name, keys):
    code, output = in_process(ANY_OPTIMIZER, "--iterations", "2", script_args=[name])
    assert code == 0
    torch.manual_seed(1)
    layer = torch.nn.Linear(2, 1)
    optim = getattr(torch.optim, name)(layer.parameters(), lr=0.05)
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
    gf = files.load(output)
    for state in gf.recorded.iterations:
        optim.zero_grad()
        layer(x).square().mean().backward()
        optim.step()
        saved = state.optimizers["optim"]
        assert saved.type == name and saved.param_groups[0]["lr"] == 0.05
        for pname, p in zip(("layer.weight", "layer.bias"), layer.parameters()):
            assert set(saved.state[pname]) == keys
            for key in keys:
                np.testing.assert_allclose(np.asarray(saved.state[pname][key]),
                                           torch.as_tensor(optim.state[p][key]).numpy(),
                                           rtol=1e-6)


def test_the_output_says_what_the_iteration_budget_cut(in_process, monkeypatch, capsys):
    recording = sys.modules["engine.record.session"]  # the module: the package names a function

    # 11 elements an iteration (Adagrad on Linear(2, 1)): the second is cut, the third lacks all
    monkeypatch.setattr(recording, "DEFAULT_ITERATION_BUDGET", (1000, 20))
    code, output = in_process(ANY_OPTIMIZER, "--iterations", "3", script_args=["Adagrad"])
    assert code == 0
    said = dict(re.findall(r"(cut from iteration \d+): (.*)", capsys.readouterr().err))
    summary = files.load(output).metadata[METADATA_KEY]["iterations"]
    listed = {k: [*s["omitted"], *s["omitted_grads"],
                  *(f"{p} {key}" for cut in s["omitted_state"].values()
                    for p, keys in cut.items() for key in keys)]
              for k, s in enumerate(summary)}
    assert set(said) == {f"cut from iteration {k}" for k, names in listed.items() if names}
    assert len(said) >= 2 and not listed[0]
    for k, names in listed.items():
        for name in names:
            assert name in said[f"cut from iteration {k}"], (k, name)
