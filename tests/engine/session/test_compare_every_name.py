"""The timeline's comparison of two points (``panels_model.compare``), without Qt: every named
tensor and Python number is compared, and only what differs counts as a change."""

from __future__ import annotations

import math

import numpy as np

import engine as torch
from engine.session import panels_model as pm
from engine.session.state import capture


def _iteration(w, opt, it, zero_at=None):
    """One pass of the NaN example (``/tmp/qa/nan37.py``): the names it leaves bound."""
    opt.zero_grad()
    p = torch.sigmoid(w) * (0.0 if it == zero_at else 1.0)
    loss = -torch.log(p).sum()
    return {"w": w, "opt": opt, "it": it, "p": p, "loss": loss}


def _changed(a, b):
    return {(r.what, r.name): r for r in pm.compare(a, b) if r.changed}


def test_the_loss_and_every_tensor_the_user_sees_are_compared():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    ns = _iteration(w, opt, 36)
    ns["loss"].backward()
    opt.step()
    a = capture(_iteration(w, opt, 36), None)  # the previous iteration, before its backward
    b = capture(_iteration(w, opt, 37, zero_at=37), None, previous=a)
    rows = _changed(a, b)
    assert set(rows) == {("tensor", "p"), ("tensor", "loss"), ("number", "it")}
    assert rows["tensor", "loss"].b.item() == math.inf
    assert rows["tensor", "loss"].summary.endswith("→ inf")
    np.testing.assert_array_equal(rows["tensor", "p"].b, [0.0, 0.0])
    assert rows["number", "it"].summary == "36 → 37"
    everything = {(r.what, r.name): r for r in pm.compare(a, b)}
    assert not everything["grad", "w"].changed  # None → None: zero_grad() ran at both points
    assert everything["grad", "w"].summary == "unchanged"
    assert not everything["parameter", "w"].changed  # no step() between the two points
    assert ("grad", "p") not in everything  # a non-leaf that keeps no .grad has no grad row


def test_nan_to_nan_is_unchanged_and_nan_to_a_number_is_a_change():
    x = torch.tensor([float("nan"), 1.0])
    a = capture({"x": x}, None)
    b = capture({"x": torch.tensor([float("nan"), 1.0])}, None)
    assert not _changed(a, b)
    c = capture({"x": torch.tensor([0.0, 1.0])}, None)
    row = _changed(a, c)["tensor", "x"]
    assert row.summary == "[nan, 1] → [0, 1]"


def test_a_name_bound_at_one_point_only_reads_unbound_at_the_other():
    a = capture({"lr": 0.1}, None)
    b = capture({"lr": 0.1, "y": torch.ones(5), "epoch": 2}, None)
    rows = _changed(a, b)
    assert set(rows) == {("tensor", "y"), ("number", "epoch")}
    assert rows["tensor", "y"].summary == "unbound → shape (5,)"
    assert rows["number", "epoch"].summary == "unbound → 2"


def test_a_big_array_that_becomes_non_finite_says_how_many_values_did():
    a = capture({"h": torch.zeros(10)}, None)
    b = capture({"h": torch.tensor([0.0] * 8 + [float("inf"), float("nan")])}, None)
    assert _changed(a, b)["tensor", "h"].summary == "shape (10,) → shape (10,) with 2 NaN/Inf"
