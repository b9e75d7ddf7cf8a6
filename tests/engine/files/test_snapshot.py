"""A training run saved mid-way (through a file) resumes exactly where it was."""

import numpy as np
import pytest

import engine as torch
import engine.files as F
from engine.files.snapshot import capture_state, named_tensors, restore_state

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2)


def setup(seed, optimizer):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opts = {"adam": lambda p: torch.optim.Adam(p, lr=0.05),
            "sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)}
    return {"model": model, "opt": opts[optimizer](model.parameters()), "X": torch.tensor(X)}


def train(ns, steps):
    for _ in range(steps):
        ns["opt"].zero_grad()
        loss = (ns["model"](ns["X"]) ** 2).mean()
        loss.backward()
        ns["opt"].step()


def weights(ns):
    return {name: t._data.copy() for name, t in named_tensors(ns).items()}


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_resuming_from_a_saved_file_continues_bit_for_bit(optimizer, tmp_path):
    original = setup(0, optimizer)
    train(original, 3)
    path = tmp_path / "run.gstep"
    F.save(path, F.GraphFile(script="", state=capture_state(original, iteration=3)))
    train(original, 4)

    resumed = setup(1, optimizer)  # different initial weights: everything must come from the file
    state = F.load(path).state
    assert state.iteration == 3
    assert restore_state(resumed, state) == []
    train(resumed, 4)

    expected, actual = weights(original), weights(resumed)
    assert expected.keys() == actual.keys() == {"model.0.weight", "model.0.bias",
                                                "model.2.weight", "model.2.bias", "X"}
    for name in expected:
        assert expected[name].tobytes() == actual[name].tobytes(), name


def test_captured_state_names_grads_and_optimizer_keys():
    ns = setup(0, "adam")
    train(ns, 2)
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    inner = leaf * 2  # a non-leaf without retain_grad: PyTorch keeps no grad for it
    inner.sum().backward()
    ns.update(leaf=leaf, inner=inner, alias=leaf)
    state = capture_state(ns, 2)
    assert state.tensors["leaf"].grad.tolist() == [2.0, 2.0]
    assert state.tensors["inner"].grad is None
    assert state.tensors["inner"].value.tolist() == [2.0, 4.0]
    assert "alias" not in state.tensors  # one tensor, one name
    adam = state.optimizers["opt"]
    assert adam.type == "Adam"
    assert adam.param_groups[0]["params"] == ["model.0.weight", "model.0.bias",
                                              "model.2.weight", "model.2.bias"]
    assert adam.param_groups[0]["betas"] == [0.9, 0.999]
    assert set(adam.state["model.0.weight"]) == {"step", "exp_avg", "exp_avg_sq"}
    assert float(adam.state["model.0.weight"]["step"]) == 2.0


def test_names_the_namespace_lacks_are_reported_not_guessed():
    ns = setup(0, "sgd")
    state = capture_state(ns)
    state.tensors["gone"] = F.SavedTensor(np.zeros(1, np.float32))
    assert restore_state({"model": ns["model"]}, state) == ["X", "gone", "opt"]
