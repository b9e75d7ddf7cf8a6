"""The session's naming work per statement is bounded (issue 14), and what it checks stays right.

The session walks the names once per pause at most (the passing snapshot, the linter, the NaN
check and the names in messages share the walk; the linter's end-of-backward check adds one per
``backward()``), and not at all for a statement that touches no gradient once the timeline's
passing points are full. Counted with a counting ``naming.walk``,
never with the clock.
"""

from __future__ import annotations

import pytest

from engine import naming
from engine.session import Session, state
from engine.session import session as session_module

LOOP = """
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 2)
y = torch.randn(8, 1)
for it in range(6):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    a = 1.0
    b = a + 2.0
    c = [a, b]
    opt.step()
"""


@pytest.fixture
def walks(monkeypatch):
    count = {"n": 0}
    walk = naming.walk

    def counting(*args, **kwargs):
        count["n"] += 1
        return walk(*args, **kwargs)

    monkeypatch.setattr(naming, "walk", counting)
    monkeypatch.setattr(state.naming, "walk", counting)
    return count


def _statements(source: str) -> int:
    s = Session(source)
    s.run_to_end()
    return sum(1 for p in s.timeline if p.kind == "statement")


def test_a_run_walks_the_names_at_most_once_per_statement(walks):
    statements = _statements(LOOP)
    walks["n"] = 0
    s = Session(LOOP)
    s.run_to_end()
    assert s.status == "finished"
    # every statement passed gets a snapshot (one walk), shared by the linter; the linter's
    # end-of-backward check walks once per backward(); the run's end once
    assert statements <= walks["n"] <= statements + s.counters.backward + 2


def test_past_the_passing_points_only_gradient_statements_walk(walks, monkeypatch):
    monkeypatch.setattr(session_module, "PASSING_POINTS", 1)
    s = Session(LOOP)
    s.run_to_end()
    assert s.status == "finished"
    # per iteration: loss.backward() and opt.step() sync the linter (one walk each), plus the
    # loop's first statement recorded as a point; the three plain statements walk nothing
    assert walks["n"] <= 6 * 3 + 4


ACCUMULATING = """
import torch

w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for it in range(3):
    (w * 2).sum().backward()
    opt.step()
"""


@pytest.mark.parametrize(("clearing", "expected"), [
    ("", [("accumulated_grads", "w")]),  # left to accumulate: flagged
    ("    w.grad = None\n", []),  # cleared by hand: the linter must see it before backward()
    ("    w.grad.zero_()\n", []),
])
def test_the_linter_still_sees_a_gradient_cleared_by_hand(clearing, expected):
    s = Session(ACCUMULATING + clearing)
    s.run_to_end()
    assert s.status == "finished"
    assert [(w.kind, w.subject) for w in s.warnings] == expected


def test_the_nan_breakpoint_still_stops_at_the_statement_after_the_nan():
    source = """
import torch

w = torch.ones(2)
a = 1.0
w[0] = float('nan')
b = 2.0
"""
    s = Session(source)
    s.break_on_nan(True)
    s.continue_()
    assert s.status == "paused" and s.position.line == 7
    assert "NaN/Inf in w" in s.timeline[-1].reason
