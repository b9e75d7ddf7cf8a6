"""``gradstep run`` on a file recorded from real PyTorch reports what the recording holds: the
graph (PyTorch's node names with counts), each iteration's loss and each parameter's gradient
norm, as text and as ``--format json`` (engine/record/report.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine import files
from engine.cli import main


def _section(text: str, title: str) -> list[str]:
    """The lines under ``title`` up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def _loss_lines(text: str) -> list[tuple[int, float]]:
    return [(int(k), float(v)) for k, v in map(str.split, _section(text, "Loss per iteration"))]


@pytest.fixture(scope="module")
def linear_sgd_recording(tmp_path_factory):
    """nn.Linear, SGD, 3 iterations, recorded; with what torch itself computed in the loop."""
    torch = pytest.importorskip("torch", reason="recording needs real PyTorch")
    torch.set_num_threads(1)
    from engine import record

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(5, 3)
    y = torch.randn(5, 2)
    losses, norms = [], []
    path = tmp_path_factory.mktemp("rec") / "linear.gstep"
    with record.session(path, model=model, optimizer=opt):
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            losses.append(loss.item())
            norms.append({n: torch.linalg.vector_norm(p.grad.double()).item()
                          for n, p in model.named_parameters()})
            opt.step()
    assert len(set(losses)) == 3  # the training moved: three different numbers to find
    return str(path), losses, norms


def test_text_names_the_recorded_nodes_and_one_loss_per_iteration(linear_sgd_recording, capsys):
    path, losses, norms = linear_sgd_recording
    assert main(["run", path]) == 0
    text = capsys.readouterr().out
    assert "backward calls: 0" not in text  # the old answer: it ran the placeholder script
    assert "3 iterations" in text.splitlines()[0]
    counts = {name: int(n) for name, n in map(str.split, _section(text, "Recorded graph"))}
    assert counts["AddmmBackward0"] == 1
    assert counts["MseLossBackward0"] == 1
    assert counts["torch::autograd::AccumulateGrad"] == 2
    assert _loss_lines(text) == list(enumerate(losses))
    shown: dict[int, dict[str, float]] = {}
    for line in _section(text, "Gradient norm per parameter"):
        if line.startswith("  iteration "):
            k = int(line.split()[1])
            shown[k] = {}
        else:
            name, value = line.split()
            shown[k][name] = float(value)
    assert shown.keys() == {0, 1, 2}
    for k, per_param in enumerate(norms):
        assert shown[k] == pytest.approx(per_param, rel=1e-5)  # printed with 6 digits


def test_json_holds_the_same_numbers(linear_sgd_recording, capsys):
    path, losses, norms = linear_sgd_recording
    assert main(["run", path, "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["status"] == "recorded"
    names = {item["name"]: item["count"] for item in rep["graph"]["node_names"]}
    assert names["AddmmBackward0"] == 1 and names["torch::autograd::AccumulateGrad"] == 2
    assert [leaf["name"] for leaf in rep["graph"]["leaves"]] == ["weight", "bias"]
    assert [s["iteration"] for s in rep["iterations"]] == [0, 1, 2]
    assert [s["loss"] for s in rep["iterations"]] == losses
    assert rep["losses"] == [{"iteration": k, "loss": v} for k, v in enumerate(losses)]
    for step, expected in zip(rep["iterations"], norms):
        assert step["grad_norms"] == pytest.approx(expected, rel=1e-12)


def test_iterations_option_cuts_the_report_and_break_on_is_refused(linear_sgd_recording,
                                                                    capsys):
    path, losses, _ = linear_sgd_recording
    assert main(["run", path, "--iterations", "2", "--format", "json"]) == 0
    assert [s["loss"] for s in json.loads(capsys.readouterr().out)["iterations"]] == losses[:2]
    assert main(["run", path, "--break-on", "nan"]) == 2
    assert "--break-on" in capsys.readouterr().err


def _hand_made(summary) -> files.GraphFile:
    """A recording written without torch: a grad too large to keep, a summary to fill it in."""
    state = files.SavedState(0, {
        "w": files.SavedTensor(np.array([3.0, 4.0], dtype=np.float32),
                               np.array([3.0, 4.0], dtype=np.float32), True),
        "b": files.SavedTensor(np.array([1.0], dtype=np.float32), None, True),
        "loss": files.SavedTensor(np.array(float("nan"), dtype=np.float32), None, True),
    })
    nodes = [files.RecordedNode("t:w", "tensor", "w", {"name": "w", "shape": [2]}),
             files.RecordedNode("f", "function", "MulBackward0", {"node_name": "MulBackward0"})]
    recorded = files.Recorded(nodes, [files.RecordedEdge("t:w", "f")], ["t:w"], [state])
    return files.GraphFile(script="# recorded\n", recorded=recorded,
                           metadata={"gradstep.record": summary})


@pytest.mark.parametrize(("summary", "b_norm"), [
    ({"iterations": [{"loss": 1.0, "grad_norms": {"w": 99.0, "b": 2.5}}]}, 2.5),
    ({"iterations": "garbage", "torch_version": 7}, None),
    ({"iterations": [{"grad_norms": ["b"]}, 3]}, None),
])
def test_a_recording_without_torch_reports_saved_numbers_and_survives_odd_metadata(
        summary, b_norm, tmp_path, capsys):
    path = tmp_path / "hand.gstep"
    files.save(path, _hand_made(summary))
    assert main(["run", str(path), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    step = rep["iterations"][0]
    assert step["loss"] == "nan"  # the saved loss tensor wins over the summary's 1.0
    assert step["grad_norms"]["w"] == pytest.approx(5.0)  # from the saved grad, not 99
    assert step["grad_norms"].get("b") == b_norm  # its grad was not kept: the summary's
    assert rep["graph"]["node_names"] == [{"name": "MulBackward0", "count": 1}]
    assert main(["run", str(path)]) == 0
    text = capsys.readouterr().out
    assert "MulBackward0" in text and math.isnan(_loss_lines(text)[0][1])


def test_leaves_are_the_backward_graphs_not_batchnorms_buffers(tmp_path, capsys):
    torch = pytest.importorskip("torch", reason="recording needs real PyTorch")
    from engine import record

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    path = tmp_path / "bn.gstep"
    with record.session(path, model=model):
        model(torch.randn(6, 3)).sum().backward()
    buffers = {name for name, _ in model.named_buffers()}
    assert buffers == {"1.running_mean", "1.running_var", "1.num_batches_tracked"}
    assert main(["run", str(path)]) == 0
    text = capsys.readouterr().out
    listed = {line.split()[0] for line in _section(text, "Leaves")}
    assert listed == {name for name, _ in model.named_parameters()}
    also = next(line for line in text.splitlines() if line.startswith("Also recorded"))
    assert all(name in also for name in buffers)
