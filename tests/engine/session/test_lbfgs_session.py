"""The debugger on L-BFGS: one step() call runs the closure many times (the session steps into
it and counts each backward), and the optimizer panel's model shows its state, which is global
(on the first parameter) and holds lists of tensors (its curvature history)."""

from __future__ import annotations

import numpy as np
import pytest

import engine as torch
from engine.session import Session
from engine.session import panels_model as pm
from engine.session.panels_model.optimizer import shown_state
from engine.session.state import capture


@pytest.fixture
def recorder():
    rec = pm.PanelsRecorder().attach()
    yield rec
    rec.detach()


def _train(steps=2, **kw):
    u = torch.tensor([0.5, -0.3], requires_grad=True)
    v = torch.tensor(2.0, requires_grad=True)
    opt = torch.optim.LBFGS([u, v], history_size=3, **kw)

    def closure():
        opt.zero_grad()
        loss = ((u * v - 1) ** 2).sum() + 0.1 * ((u - v) ** 2).sum()
        loss.backward()
        return loss

    befores = []
    for _ in range(steps):
        befores.append((u._data.copy(), v._data.copy()))
        opt.step(closure)
    return u, v, opt, befores[-1]


def test_lbfgs_rows_show_its_global_state_on_the_first_parameter(recorder):
    u, v, opt, (u0, v0) = _train(max_iter=6)
    ns = {"u": u, "v": v, "opt": opt}
    (group,) = pm.optimizer_rows(capture(ns, None), ns, recorder, at_step=True)
    assert group.kind == "LBFGS" and dict(group.hyper)["history_size"] == 3
    first, second = group.params
    state, live = dict(first.state), opt.state[u]
    assert state["func_evals"] == live["func_evals"] and state["n_iter"] == live["n_iter"]
    np.testing.assert_array_equal(state["d"], live["d"]._data)
    np.testing.assert_array_equal(state["prev_flat_grad"], live["prev_flat_grad"]._data)
    assert state["prev_loss"] == live["prev_loss"]
    # the history lists: stacked when the snapshot copied them, else counted
    for key in ("old_dirs", "old_stps", "ro"):
        if key in state:
            assert state[key].shape[0] == len(live[key])
        else:
            assert state[f"len({key})"] == len(live[key]) > 0
    assert second.state == ()  # L-BFGS registers all its state on the first parameter
    # every value is one the panel can print
    for _, value in first.state:
        assert pm.format_array(value) != ""
    # one step() is one update of each parameter, from where step() began to where it ended
    assert recorder.steps.steps == 2
    for row, param, before in ((first, u, u0), (second, v, v0)):
        assert row.at_step and row.rule.matches
        np.testing.assert_array_equal(row.rule.before, before)
        np.testing.assert_array_equal(row.rule.after, param._data)
    header, rows = pm.optimizer_table([group])
    assert len(rows) == 2 and "func_evals=" in rows[0][header.index("state")]


def test_shown_state_stacks_a_history_and_counts_what_it_cannot_stack():
    y = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]
    ro = [torch.tensor(0.5), torch.tensor(0.25)]
    al = [torch.tensor(-1.0), None, None]
    shown = dict(shown_state([("old_dirs", y), ("ro", ro), ("al", al), ("t", 1),
                              ("d", np.array([0.1, 0.2])), ("empty", []),
                              ("ragged", [np.zeros(2), np.zeros(3)]),
                              ("old_stps", "[tensor([0.5, 0.5]), tensor([1., 1.])]")]))
    np.testing.assert_array_equal(shown["old_dirs"], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(shown["ro"], [0.5, 0.25])
    np.testing.assert_array_equal(shown["al"], [-1.0])  # the slots not yet set are left out
    assert shown["t"] == 1 and shown["empty"].shape == (0,)
    np.testing.assert_array_equal(shown["d"], [0.1, 0.2])
    assert shown["len(ragged)"] == 2 and shown["len(old_stps)"] == 2
    assert "ragged" not in shown and "old_stps" not in shown


SCRIPT = """import torch
w = torch.tensor([0.5, 2.0], requires_grad=True)
opt = torch.optim.LBFGS([w], max_iter=3)
for i in range(2):
    def closure():
        opt.zero_grad()
        loss = ((w - 1) ** 4).sum() + (w[0] * w[1]) ** 2
        loss.backward()
        return loss
    opt.step(closure)
"""


def test_stepping_into_step_walks_each_closure_call_and_counts_its_backward():
    s = Session(SCRIPT)
    s.break_on_step(True)
    s.continue_()
    assert (s.position.line, s.counters.backward) == (10, 0)
    s.step_into()  # step() calls the closure: the first pause is in its body
    assert (s.position.line, s.position.depth) == (6, 1)
    seen = []
    while s.position.depth == 1:
        seen.append((s.position.line, s.counters.backward, s.counters.zero_grad))
        s.step_over()
    # max_iter=3 without a line search: one evaluation to start, then one per iteration but
    # the last; each call zeroes the grads, then runs one backward
    assert [line for line, _, _ in seen] == [6, 7, 8, 9] * 3
    assert [b for line, b, _ in seen if line == 9] == [1, 2, 3]
    assert [z for line, _, z in seen if line == 7] == [1, 2, 3]
    assert (s.position.line, s.counters.step, s.counters.iteration) == (5, 1, 1)
    s.break_on_step(False)
    s.run_to_end()
    assert s.status == "finished"
    assert (s.counters.backward, s.counters.zero_grad, s.counters.step) == (6, 6, 2)
