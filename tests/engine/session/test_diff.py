"""StateDiff: what changed between two snapshots, and by how much."""

import numpy as np

import engine as torch
from engine.session.diff import compute_diff
from engine.session.state import capture


def test_value_and_grad_changes_with_max_abs_change():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    before = capture({"w": w}, None)
    (w * w).sum().backward()
    after_backward = capture({"w": w}, None, before)
    diff = compute_diff(before, after_backward)
    assert [(c.name, c.field, c.change, c.max_abs_change) for c in diff.tensors] == [
        ("w", "grad", "created", 6.0)]
    with torch.no_grad():
        w -= 0.5 * w.grad
    after_step = capture({"w": w}, None, after_backward)
    diff = compute_diff(after_backward, after_step)
    assert [(c.field, c.change, c.max_abs_change) for c in diff.tensors] == [
        ("value", "changed", 3.0)]


def test_grads_becoming_none_and_zeros_are_told_apart():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    (a * b).sum().backward()
    before = capture({"a": a, "b": b}, None)
    a.grad = None
    b.grad.zero_()
    diff = compute_diff(before, capture({"a": a, "b": b}, None, before))
    assert diff.grads_became_none == ("a",)
    assert diff.grads_became_zeros == ("b",)


def test_new_and_removed_names_and_nan_counts_as_infinite_change():
    x = torch.tensor([1.0, 2.0])
    before = capture({"x": x}, None)
    y = torch.tensor([0.0])
    x._data[1] = np.nan
    diff = compute_diff(before, capture({"y": y, "x": x}, None, before))
    kinds = {(c.name, c.change): c.max_abs_change for c in diff.tensors}
    assert kinds[("x", "changed")] == np.inf
    assert ("y", "new") in kinds
    diff = compute_diff(capture({"x": x, "y": y}, None), capture({"x": x}, None))
    assert [(c.name, c.change) for c in diff.tensors] == [("y", "removed")]


def test_module_parameters_are_named_by_their_path():
    nn = torch.nn
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    snap = capture({"model": model}, None)
    assert sorted(snap.tensors) == ["model.0.bias", "model.0.weight", "model.2.bias",
                                    "model.2.weight"]
