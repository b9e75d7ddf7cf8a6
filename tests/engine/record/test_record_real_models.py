"""``gradstep record`` on ResNet-50 and a small GPT, unchanged scripts with real torch: the file
opens (``engine.files.load``, ``RecordedSession``) and holds what torch computed -- the graph's
nodes, the parameters' grads, the losses, the optimizer's state and the module groups."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # shared machine: torch's pool spins when the cores are busy

import engine.files as files
from engine.cli import main as cli_main
from engine.graph import fold
from engine.record import METADATA_KEY
from engine.record.player import RecordedSession
from tests.engine.record import real_models

pytestmark = pytest.mark.torch

MAIN = '''

if __name__ == "__main__":
    import sys

    train(sys.argv[1], int(sys.argv[2]))
'''
ROOT = "model"  # the recorder names the model after the training loop's variable


class Truth:
    """What torch had in the tests' own run of the same loop (same seed, one thread)."""

    def __init__(self, kind: str, iterations: int) -> None:
        self.losses, self.values, self.grads, self.states = [], [], [], []
        self.node_names: Counter = Counter()
        self.groups: dict[str, str] = {}  # parameter name -> its module's path
        self.model, self.optimizer = real_models.train(kind, iterations, seen=self._seen)
        self.states.append(self._state())  # after the last step

    def _seen(self, model, optimizer, loss) -> None:
        if self.losses:
            self.states.append(self._state(model, optimizer))  # the previous step's
        self.names = {p: f"{ROOT}.{n}" for n, p in model.named_parameters()}
        self.losses.append(loss.item())
        self.values.append({self.names[p]: p.detach().numpy().copy() for p in self.names})
        self.grads.append({self.names[p]: p.grad.numpy().copy() for p in self.names})
        self.node_names = _walk(loss.grad_fn)  # the last iteration's graph is the file's
        self.model, self.optimizer = model, optimizer

    def _state(self, model=None, optimizer=None) -> dict:
        optimizer = optimizer or self.optimizer
        return {self.names[p]: {k: v.numpy().copy() if torch.is_tensor(v) else v
                                for k, v in s.items()} for p, s in optimizer.state.items()}


def _walk(root) -> Counter:
    """PyTorch's node names of the graph behind ``root``, each node once."""
    seen, stack, names = set(), [root], Counter()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names[fn.name()] += 1
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return names


def _record(tmp_path, monkeypatch, kind: str, iterations: int) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANK", raising=False)
    script = tmp_path / f"train_{kind}.py"
    script.write_text(Path(real_models.__file__).read_text(encoding="utf-8") + MAIN)
    output = tmp_path / f"{kind}.gstep"
    assert cli_main(["record", "--iterations", str(iterations), "--output", str(output),
                     str(script), kind, str(iterations)]) == 0
    return output


def _check(path: Path, truth: Truth, iterations: int, module_kinds: dict):
    gf = files.load(path)
    session = RecordedSession(gf, filename=path.name)
    graph = session.graph()

    # the graph: torch's nodes, by name and count
    recorded = Counter(a["node_name"] for _, a in graph.nodes(data=True) if a["kind"] != "tensor")
    assert recorded == truth.node_names
    assert session.steps_per_backward == sum(truth.node_names.values())

    # losses per iteration, as torch printed them
    assert [loss for _, loss in session.losses] == pytest.approx(truth.losses, rel=1e-6)
    assert len(gf.recorded.iterations) == iterations

    # grads: every one kept equals p.grad, and a tensor left out (over the budget) is listed
    # as omitted; kept or not, each grad has torch's norm in the summary
    summary = gf.metadata[METADATA_KEY]["iterations"]
    kept = 0
    for k, state in enumerate(gf.recorded.iterations):
        for name, grad in truth.grads[k].items():
            saved = state.tensors.get(name)
            if saved is not None and saved.grad is not None:
                np.testing.assert_array_equal(saved.grad, grad, err_msg=name)
                np.testing.assert_array_equal(saved.value, truth.values[k][name])
                kept += 1
            elif saved is None:
                assert name in summary[k]["omitted"], name
            else:  # the value fit the budget, its grad no more: listed, and its norm kept
                np.testing.assert_array_equal(saved.value, truth.values[k][name])
                assert name in summary[k]["omitted_grads"], name
            assert summary[k]["grad_norms"][name] == pytest.approx(
                float(np.linalg.norm(grad.astype(np.float64).ravel())), rel=1e-5)
    return_kept = kept

    # the optimizer's state after each step (a buffer over the budget is left out)
    complete = 0
    for k, state in enumerate(gf.recorded.iterations):
        saved = next(iter(state.optimizers.values()))
        assert saved.type == type(truth.optimizer).__name__
        cut = next(iter(summary[k]["omitted_state"].values()), {})
        for name, entry in saved.state.items():
            assert set(entry) <= set(truth.states[k][name]), name
            complete += set(entry) == set(truth.states[k][name])
            # what the budget left out is listed (a plain number is never charged to it)
            arrays = {key for key, v in truth.states[k][name].items()
                      if isinstance(v, np.ndarray)}
            assert set(cut.get(name, ())) == arrays - set(entry), name
            for key, value in entry.items():
                np.testing.assert_array_equal(np.asarray(value), np.asarray(
                    truth.states[k][name][key]), err_msg=f"{name} {key}")
    at_end = session.snapshot().optimizer
    assert at_end and {p for _, p, _ in at_end} <= set(truth.states[-1])

    # module groups: each op in its module's path, and a module folds into one box
    paths = {f"{ROOT}.{n}": type(m).__name__ for n, m in truth.model.named_modules() if n}
    for node_name, module_type in module_kinds.items():
        groups = {a["group"] for _, a in graph.nodes(data=True) if a.get("node_name") ==
                  node_name}
        assert groups == {p for p, t in paths.items() if t == module_type}, node_name
    return graph, return_kept, complete


def test_resnet50_records_and_opens(tmp_path, monkeypatch):
    path = _record(tmp_path, monkeypatch, "resnet50", 2)
    truth = Truth("resnet50", 2)
    graph, kept, complete = _check(path, truth, 2, {"ConvolutionBackward0": "Conv2d",
                                          "NativeBatchNormBackward0": "BatchNorm2d",
                                          "AddmmBackward0": "Linear"})
    assert truth.node_names["ConvolutionBackward0"] == 53  # 49 convs + 4 downsamples
    # 25.6 million parameters: the recorder's per-iteration budget (3,000,000 elements) keeps
    # most of the first iteration's values and grads, the rest as statistics
    assert kept > 100 and complete > 20
    members = [n for n, a in graph.nodes(data=True)
               if (a.get("group") or "").startswith(f"{ROOT}.layer3.")]
    folded = fold(graph, f"{ROOT}.layer3")
    box = folded.nodes[f"group:{ROOT}.layer3"]
    assert sorted(box["members"]) == sorted(members)
    assert folded.number_of_nodes() == graph.number_of_nodes() - len(members) + 1


def test_small_gpt_records_and_opens(tmp_path, monkeypatch):
    path = _record(tmp_path, monkeypatch, "gpt", 3)
    truth = Truth("gpt", 3)
    graph, kept, complete = _check(path, truth, 3, {"NativeLayerNormBackward0": "LayerNorm",
                                          "EmbeddingBackward0": "Embedding",
                                          "SoftmaxBackward0": "CausalSelfAttention",
                                          "GeluBackward0": "GELU"})
    assert kept == complete == 3 * len(truth.grads[0])  # a small model: every iteration whole
    assert truth.node_names["NativeLayerNormBackward0"] == 5  # 2 blocks x 2 + the final one
    folded = fold(graph, f"{ROOT}.blocks.1")
    assert f"group:{ROOT}.blocks.1" in folded
    assert not any((a.get("group") or "").startswith(f"{ROOT}.blocks.1")
                   for n, a in folded.nodes(data=True) if a["kind"] != "group")
