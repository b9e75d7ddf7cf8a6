"""TrainingHistory on what a user asks of it: a frozen layer's parameters (grad None) in the
gradient norms and the CSV, the update ratio of a parameter that starts at zero (PyTorch users'
‖Δw‖ / ‖w‖, with no point where ‖w‖ = 0), and a script that trains twice as two runs."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.session import panels_model as pm
from engine.session.panels_model.training import NO_GRAD, no_grad_names

torch = pytest.importorskip("torch")


@pytest.fixture
def recorder():
    rec = pm.PanelsRecorder().attach()
    yield rec
    rec.detach()


def _frozen_net(lib):
    """/tmp/qa/frozen.py's model: fc1's output detached, so fc1 never gets a grad."""
    lib.manual_seed(0)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(3, 4)
            self.fc2 = lib.nn.Linear(4, 1)

        def forward(self, x):
            return self.fc2(lib.relu(self.fc1(x)).detach())

    return Net()


def _train(lib, net, opt, iterations=3):
    x = lib.ones(8, 3)
    y = lib.zeros(8, 1)
    for _ in range(iterations):
        opt.zero_grad()
        lib.nn.functional.mse_loss(net(x), y).backward()
        opt.step()


def test_a_frozen_layer_is_listed_with_no_grad_and_written_none_in_the_csv(recorder):
    net = _frozen_net(engine)
    _train(engine, net, engine.optim.SGD(net.parameters(), lr=0.1))
    h = recorder.history
    names = pm.names_by_id({"net": net})
    norms = h.series(h.grad_norms, names)
    assert set(norms) == {"net.fc1.weight", "net.fc1.bias", "net.fc2.weight", "net.fc2.bias"}
    np.testing.assert_array_equal(norms["net.fc1.weight"][1], [NO_GRAD] * 3)
    assert no_grad_names(norms) == ["net.fc1.weight", "net.fc1.bias"]
    # what torch has: fc1's grads None, fc2's the norms drawn
    tnet = _frozen_net(torch)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1)
    seen = []
    for _ in range(3):
        topt.zero_grad()
        torch.nn.functional.mse_loss(tnet(torch.ones(8, 3)), torch.zeros(8, 1)).backward()
        seen.append({n: None if p.grad is None else float(p.grad.norm())
                     for n, p in tnet.named_parameters()})
        topt.step()
    assert all(s["fc1.weight"] is None and s["fc1.bias"] is None for s in seen)
    np.testing.assert_allclose(norms["net.fc2.weight"][1], [s["fc2.weight"] for s in seen],
                               rtol=1e-5)
    header, rows = pm.training_table(h, names)
    text = pm.csv_text(header, rows).splitlines()
    column = header.index("grad_norm[net.fc1.weight]")
    assert [line.split(",")[column] for line in text[1:]] == ["None"] * 3
    assert "run" not in header  # one run: no column for it


def test_zero_grad_set_to_none_false_draws_a_frozen_grad_as_zero(recorder):
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    frozen = engine.tensor([3.0], requires_grad=True)
    frozen.grad = engine.zeros(1)  # zeros, as zero_grad(set_to_none=False) leaves it
    opt = engine.optim.SGD([w, frozen], lr=0.1)
    for _ in range(2):
        opt.zero_grad(set_to_none=False)
        (w * w).sum().backward()
        opt.step()
    h = recorder.history
    norms = h.series(h.grad_norms, {id(w): "w", id(frozen): "frozen"})
    np.testing.assert_array_equal(norms["frozen"][1], [0.0, 0.0])
    assert no_grad_names(norms) == []


def test_the_update_ratio_of_a_parameter_that_starts_at_zero(recorder):
    engine.manual_seed(0)
    layer = engine.nn.Linear(2, 1)
    with engine.no_grad():
        layer.bias.zero_()  # a BatchNorm bias starts so
    opt = engine.optim.SGD(layer.parameters(), lr=0.1)
    x, y = engine.tensor([[1.0, 2.0]]), engine.tensor([[3.0]])
    befores = []
    for _ in range(3):
        opt.zero_grad()
        engine.nn.functional.mse_loss(layer(x), y).backward()
        befores.append(layer.bias.detach().numpy().copy())
        opt.step()
    h = recorder.history
    xs, ys = h.series(h.update_ratios, {id(layer.bias): "bias"})["bias"]
    assert list(xs) == [1, 2]  # iteration 0's bias was 0: no ratio, never nan
    assert np.all(np.isfinite(ys))
    after = layer.bias.detach().numpy()
    # as torch users compute it: (p_after - p_before).norm() / p_before.norm()
    expected = [np.linalg.norm(b - a) / np.linalg.norm(a)
                for a, b in zip(befores[1:], [*befores[2:], after])]
    np.testing.assert_allclose(ys, expected, rtol=1e-5)


def test_two_models_trained_one_after_the_other_are_two_runs(recorder):
    first = engine.nn.Linear(3, 1)
    _train(engine, first, engine.optim.SGD(first.parameters(), lr=0.1), iterations=4)
    second = engine.nn.Linear(3, 1)
    _train(engine, second, engine.optim.Adam(second.parameters(), lr=0.1), iterations=2)
    h = recorder.history
    assert h.iterations == 6 and h.run_starts() == [4]
    header, rows = pm.training_table(h, pm.names_by_id({"first": first, "second": second}))
    assert header[-1] == "run" and [r[-1] for r in rows] == [1, 1, 1, 1, 2, 2]


def test_a_new_optimizer_on_the_same_model_starts_a_run(recorder):
    model = engine.nn.Linear(3, 1)
    _train(engine, model, engine.optim.SGD(model.parameters(), lr=0.1), iterations=3)
    _train(engine, model, engine.optim.Adam(model.parameters(), lr=0.1), iterations=2)
    h = recorder.history
    assert h.run_starts() == [3]
    ratios = h.series(h.update_ratios, pm.names_by_id({"model": model}))
    # the first run's curve is kept under the name it had (learned at a rest)
    assert set(ratios) >= {"model.weight", "model.bias"}


def test_a_model_made_again_keeps_the_first_runs_curves(recorder):
    model = engine.nn.Linear(3, 1)
    _train(engine, model, engine.optim.SGD(model.parameters(), lr=0.1), iterations=3)
    h = recorder.history
    h.learn_names(pm.names_by_id({"model": model}))  # a pause in the first loop
    del model
    model = engine.nn.Linear(3, 1)  # the script runs its training again, from scratch
    _train(engine, model, engine.optim.SGD(model.parameters(), lr=0.1), iterations=2)
    norms = h.series(h.grad_norms, pm.names_by_id({"model": model}))
    assert h.run_starts() == [3]
    assert list(norms["model.weight"][0]) == [3, 4]
    assert list(norms["model.weight (run 1)"][0]) == [0, 1, 2]


def test_two_optimizers_stepping_in_turn_are_one_run(recorder):
    g, d = engine.nn.Linear(2, 2), engine.nn.Linear(2, 1)
    opt_g = engine.optim.SGD(g.parameters(), lr=0.1)
    opt_d = engine.optim.SGD(d.parameters(), lr=0.1)
    x = engine.ones(4, 2)
    for _ in range(3):  # a GAN's two steps per iteration
        opt_d.zero_grad()
        d(g(x).detach()).sum().backward()
        opt_d.step()
        opt_g.zero_grad()
        d(g(x)).sum().backward()
        opt_g.step()
    assert recorder.history.run_starts() == []
