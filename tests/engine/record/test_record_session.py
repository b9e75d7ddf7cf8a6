"""The recording session: iterations of a real training loop, recorded without changing it."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# torch's thread pool spins for milliseconds per op when the cores are busy (shared machine)
torch.set_num_threads(1)

import engine.files as files
import engine.record as record

pytestmark = pytest.mark.torch

ORIGINAL_BACKWARD = torch.autograd.backward

X = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, -2.0, 1.0], [2.0, 2.0, -1.0]])
Y = torch.tensor([[1.0], [-1.0], [0.5], [0.0]])


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))


def _train(model, opt, iterations=3):
    """The training loop under test; returns each iteration's loss and grads (by name)."""
    seen = []
    for _ in range(iterations):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X), Y)
        loss.backward()
        seen.append((loss.item(), {n: p.grad.clone() for n, p in model.named_parameters()}))
        opt.step()
    return seen


@pytest.fixture
def recorded_run(tmp_path):
    model = _model()
    twin = copy.deepcopy(model)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    twin_opt = torch.optim.Adam(twin.parameters(), lr=0.05)
    path = tmp_path / "run.gstep"
    with record.session(path, model=model, optimizer=opt) as rec:
        _train(model, opt)
    expected = _train(twin, twin_opt)
    return rec, path, model, opt, twin, twin_opt, expected


def test_recording_does_not_change_the_training(recorded_run):
    _, _, model, _, twin, _, _ = recorded_run
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        assert torch.equal(p, q), name


def test_losses_and_grads_of_every_iteration(recorded_run):
    rec, path, *_, expected = recorded_run
    gf = files.load(path)
    assert [state.iteration for state in gf.recorded.iterations] == [0, 1, 2]
    assert rec.losses == [loss for loss, _ in expected]
    summary = gf.metadata[record.METADATA_KEY]["iterations"]
    assert [s["loss"] for s in summary] == rec.losses
    for state, (loss, grads) in zip(gf.recorded.iterations, expected):
        assert state.tensors["loss"].value == np.float32(loss)
        for name, grad in grads.items():
            np.testing.assert_array_equal(state.tensors[name].grad, grad.numpy())


def test_optimizer_state_after_each_step(recorded_run):
    _, path, _, _, twin, twin_opt, _ = recorded_run
    gf = files.load(path)
    saved = gf.recorded.iterations[-1].optimizers["optimizer"]
    assert saved.type == "Adam"
    assert saved.param_groups[0]["lr"] == 0.05
    assert saved.param_groups[0]["betas"] == [0.9, 0.999]
    assert saved.param_groups[0]["params"] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for name, p in twin.named_parameters():
        state = twin_opt.state[p]
        np.testing.assert_array_equal(saved.state[name]["exp_avg"], state["exp_avg"].numpy())
        np.testing.assert_array_equal(saved.state[name]["exp_avg_sq"],
                                      state["exp_avg_sq"].numpy())
        assert float(saved.state[name]["step"]) == 3.0
    first = gf.recorded.iterations[0].optimizers["optimizer"].state["0.weight"]
    assert float(first["step"]) == 1.0


def test_the_graph_is_the_last_iteration_and_others_show_their_tensors(recorded_run):
    _, path, *_, expected = recorded_run
    last = record.recorded_graph(path)
    assert last.graph["iterations"] == 3 and last.graph["iteration"] == 2
    np.testing.assert_array_equal(last.nodes["t:2.bias"]["grad"], expected[2][1]["2.bias"])
    assert last.nodes["t:0.weight/AccumulateGrad"]["group"] == "0"
    tanh = [a for _, a in last.nodes(data=True) if a["label"] == "TanhBackward0"]
    assert tanh[0]["group"] == "1"
    first = record.recorded_graph(path, iteration=0)
    np.testing.assert_array_equal(first.nodes["t:2.bias"]["grad"], expected[0][1]["2.bias"])
    assert all(e["grad"] is None for *_, e in first.edges(data=True))
    with pytest.raises(ValueError, match="out of range"):
        record.recorded_graph(path, iteration=3)


def test_the_session_leaves_torch_as_it_found_it(recorded_run):
    _, _, model, opt, *_ = recorded_run
    assert torch.autograd.backward is ORIGINAL_BACKWARD
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())
    assert not opt._optimizer_step_post_hooks


def test_without_an_optimizer_each_backward_is_an_iteration(tmp_path):
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    path = tmp_path / "plain.gstep"
    with record.session(path, names={"w": w}) as rec:
        for k in range(3):
            (w * (k + 1)).sum().backward()
    assert len(rec.iterations) == 3
    np.testing.assert_array_equal(rec.iterations[2].tensors["w"].grad, [6.0, 6.0])  # 1+2+3


def test_step_ends_an_iteration_by_hand(tmp_path):
    w = torch.tensor([2.0], requires_grad=True)
    path = tmp_path / "manual.gstep"
    with record.session(path, names={"w": w}) as rec:
        (w * w).sum().backward()
        rec.step()
        rec.step()  # nothing pending: no empty iteration
        (w * 3).sum().backward()
    assert len(rec.iterations) == 2
    assert [float(s.tensors["loss"].value) for s in rec.iterations] == [4.0, 6.0]


def test_the_file_is_written_when_training_crashes(tmp_path):
    w = torch.tensor([1.0], requires_grad=True)
    path = tmp_path / "crash.gstep"
    with pytest.raises(ZeroDivisionError):
        with record.session(path, names={"w": w}):
            (w * 2).sum().backward()
            raise ZeroDivisionError("division by zero")
    assert len(files.load(path).recorded.iterations) == 1


def test_backward_outside_the_session_is_not_recorded(tmp_path):
    w = torch.tensor([1.0], requires_grad=True)
    path = tmp_path / "once.gstep"
    with record.session(path, names={"w": w}) as rec:
        (w * 2).sum().backward()
    (w * 5).sum().backward()
    assert len(rec.iterations) == 1
    np.testing.assert_array_equal(files.load(path).recorded.iterations[0].tensors["w"].grad, [2.0])


def test_a_budget_given_to_the_session_applies_to_each_graph_afresh(tmp_path):
    w = torch.ones(40, requires_grad=True)
    path = tmp_path / "budget.gstep"
    budget = record.Budget(max_array_elements=100, max_total_elements=100)
    with record.session(path, names={"w": w}, budget=budget):
        for _ in range(3):
            (w * 2).sum().backward()
    graph = record.recorded_graph(path)
    # the third graph kept w's value and grad (80 of 100 elements), as the first one did
    assert graph.nodes["t:w"]["value"] is not None and graph.nodes["t:w"]["grad"] is not None
    np.testing.assert_array_equal(graph.nodes["t:w"]["grad"], np.full(40, 6.0, np.float32))


def _check_every_cut_is_listed(gf, model, opt) -> set:
    """Each parameter of each iteration is saved with its grad, or listed as left out (the
    tensor, or its grad), and each of torch's state arrays for a saved parameter is saved or
    listed; nothing listed was saved. Returns the kinds of cut seen."""
    summary = gf.metadata[record.METADATA_KEY]["iterations"]
    keys = {name: set(opt.state[p]) for name, p in model.named_parameters()}
    seen = set()
    for state, told in zip(gf.recorded.iterations, summary, strict=True):
        for name in keys:
            saved = state.tensors.get(name)
            listed = (name in told["omitted"], name in told["omitted_grads"])
            kind = "tensor" if saved is None else "grad" if saved.grad is None else None
            assert listed == (kind == "tensor", kind == "grad"), (state.iteration, name)
            seen.add(kind)
        saved_state = state.optimizers["optimizer"].state
        cut = told["omitted_state"].get("optimizer", {})
        assert set(cut) <= set(saved_state)  # a parameter left out is listed as a tensor
        for name, entry in saved_state.items():
            missing = {k for k in keys[name] if k != "step"} - set(entry)
            assert set(cut.get(name, ())) == missing, (state.iteration, name)
            seen.add("state" if missing else None)
    return seen - {None}


def test_whatever_the_iteration_budget_drops_is_listed(tmp_path):
    """The per-iteration budget is shared by all iterations: later ones are cut, tensor by
    tensor, then grad by grad and state by state, and the file says what each one lacks."""
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sizes = sum(p.numel() for p in model.parameters())
    budget = record.Budget(max_array_elements=1000, max_total_elements=4 * sizes)
    path = tmp_path / "cut.gstep"
    with record.session(path, model=model, optimizer=opt, iteration_budget=budget):
        _train(model, opt, iterations=3)
    assert _check_every_cut_is_listed(files.load(path), model, opt) == {"tensor", "grad", "state"}


def test_saving_before_any_backward_says_so(tmp_path):
    rec = record.session(tmp_path / "empty.gstep")
    with pytest.raises(ValueError, match="nothing recorded"):
        rec.save()
