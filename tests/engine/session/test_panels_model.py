"""The panels' model, without Qt: rows computed from real engine runs and the engine's events."""

from __future__ import annotations

import numpy as np
import pytest

import engine as torch
from engine.session import panels_model as pm
from engine.session.state import capture


@pytest.fixture
def recorder():
    rec = pm.PanelsRecorder().attach()
    yield rec
    rec.detach()


def rows_by_name(ns, recorder, previous=()):
    return {r.name: r for r in pm.buffer_rows(capture(ns, None), ns, recorder, previous)}


def test_two_backward_calls_show_two_contributions_that_sum_to_the_grad(recorder):
    t1 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t2 = t1 * t1 + 1
    t2.retain_grad()
    z = t2.sum()
    z.backward(retain_graph=True)
    ns = {"t1": t1, "t2": t2, "z": z}
    first = rows_by_name(ns, recorder)
    z.backward()
    rows = rows_by_name(ns, recorder, first.values())

    row = rows["t1"]
    assert [c.label for c in row.contributions] == ["backward #1", "backward #2"]
    np.testing.assert_array_equal(row.contributions[0].value, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(sum(c.value for c in row.contributions), t1.grad._data)
    np.testing.assert_array_equal(row.grad, [4.0, 8.0, 12.0])
    assert "sum of 2 backward() calls" in row.note
    assert row.changed and np.array_equal(row.delta, [2.0, 4.0, 6.0])
    # t1 * t1 uses t1 twice: the two paths meet at t1's AccumulateGrad and are added together
    paths = row.contributions[0].paths
    assert [name for name, _ in paths] == ["MulBackward0", "MulBackward0"]
    np.testing.assert_array_equal(paths[0][1] + paths[1][1], [2.0, 4.0, 6.0])
    # a retained non-leaf grad accumulates too, and is listed as retained
    assert rows["t2"].kind == "retained"
    np.testing.assert_array_equal(rows["t2"].grad, [2.0, 2.0, 2.0])
    assert len(rows["t2"].contributions) == 2
    assert "z" not in rows  # a non-leaf without retain_grad() has no buffer


def test_zero_grad_turns_buffers_into_none_or_zeros(recorder):
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.1)
    (w * 2 + b).sum().backward()
    ns = {"w": w, "b": b, "opt": opt}
    before = rows_by_name(ns, recorder)
    assert before["w"].state == "values"

    opt.zero_grad()  # PyTorch 2.x: set_to_none=True
    rows = rows_by_name(ns, recorder, before.values())
    assert rows["w"].state == "none" and rows["w"].grad is None and rows["w"].norm is None
    assert rows["w"].contributions == ()
    assert rows["w"].note == "None after zero_grad(set_to_none=True)"
    assert rows["w"].changed

    (w * 2 + b).sum().backward()
    opt.zero_grad(set_to_none=False)
    rows = rows_by_name(ns, recorder)
    assert rows["w"].state == "zeros"
    np.testing.assert_array_equal(rows["w"].grad, [0.0, 0.0])
    assert rows["w"].note == "zeros after zero_grad(set_to_none=False)"

    (w * 3 + b).sum().backward()  # after zeros, one contribution again
    rows = rows_by_name(ns, recorder)
    assert len(rows["w"].contributions) == 1
    assert rows["w"].note == "written by one backward() call (was zeros)"


def test_a_write_outside_backward_is_not_passed_off_as_contributions(recorder):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with torch.no_grad():
        w.grad.mul_(10)
    row = rows_by_name({"w": w}, recorder)["w"]
    assert row.contributions == ()
    assert row.note.startswith("changed outside backward()")


def test_modules_group_their_parameters(recorder):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
    loss = model(torch.ones(4, 2)).pow(2).mean()
    loss.backward()
    rows = pm.buffer_rows(capture({"model": model, "loss": loss}, None),
                          {"model": model, "loss": loss}, recorder)
    assert [(r.name, r.group) for r in rows] == [
        ("model.0.weight", "model.0"), ("model.0.bias", "model.0"),
        ("model.2.weight", "model.2"), ("model.2.bias", "model.2"),
    ]
    assert all(len(r.contributions) == 1 for r in rows)


def test_a_long_loop_without_zero_grad_folds_old_contributions(recorder):
    w = torch.tensor([1.0], requires_grad=True)
    for _ in range(20):
        (w * 2).sum().backward()
    row = rows_by_name({"w": w}, recorder)["w"]
    assert len(row.contributions) == pm.MAX_SHOWN
    assert row.contributions[0].label == "backward #1–#13"
    np.testing.assert_allclose(row.contributions[0].value, [26.0])
    np.testing.assert_allclose(sum(c.value for c in row.contributions), w.grad._data)
    assert "sum of 20 backward() calls" in row.note


def _train(opt_factory, steps=3):
    w = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    opt = opt_factory([w])
    befores = []
    for _ in range(steps):
        opt.zero_grad()
        (w * w * w).sum().backward()
        befores.append(w._data.copy())
        opt.step()
    return w, opt, befores[-1]


def test_sgd_momentum_rule_numbers_equal_the_real_update(recorder):
    w, opt, before = _train(lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9))
    groups = pm.optimizer_rows(capture({"w": w, "opt": opt}, None), {"w": w, "opt": opt},
                               recorder, at_step=True)
    (param,) = groups[0].params
    rule = param.rule
    assert groups[0].kind == "SGD" and dict(groups[0].hyper)["momentum"] == 0.9
    assert rule.matches and param.at_step
    np.testing.assert_array_equal(rule.before, before)
    np.testing.assert_array_equal(rule.after, w._data)  # the parameter after the real step
    terms = {t.symbol: t.value for t in rule.terms}
    buf = opt.state[w]["momentum_buffer"]._data
    np.testing.assert_allclose(terms["buf"], buf, rtol=1e-6)
    # buf = 0.9 * buf_prev + grad, and the update is lr * buf
    np.testing.assert_allclose(terms["buf"], 0.9 * terms["buf_prev"] + w.grad._data, rtol=1e-5)
    np.testing.assert_allclose(rule.update, 0.01 * buf, rtol=1e-5)
    np.testing.assert_allclose(before - rule.update, w._data, rtol=1e-5)
    np.testing.assert_array_equal(rule.grad, w.grad._data)  # step() left .grad as it was
    assert dict(param.state)["momentum_buffer"].shape == (2, 2)
    assert rule.equations[-1] == "w_new = w - lr * buf"
    assert rule.filled_in()[-1].startswith("w_new = w - Δ = [[")


@pytest.mark.parametrize("factory", [
    lambda p: torch.optim.SGD(p, lr=0.1),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5, nesterov=True, weight_decay=0.01),
    lambda p: torch.optim.Adam(p, lr=0.01),
    lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True, weight_decay=0.1),
    lambda p: torch.optim.AdamW(p, lr=0.01),
    lambda p: torch.optim.RMSprop(p, lr=0.01),
    lambda p: torch.optim.Adagrad(p, lr=0.1),
])
def test_every_rule_reproduces_its_optimizer(recorder, factory):
    w, opt, _ = _train(factory)
    rule = pm.update_rule(recorder.steps.record(w), opt.param_groups[0])
    assert rule.matches
    np.testing.assert_allclose(rule.predicted_after, w._data, rtol=1e-5, atol=1e-6)


def test_adam_shows_moments_and_bias_corrections(recorder):
    w, opt, _ = _train(lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.9, 0.999)))
    ns = {"w": w, "opt": opt}
    (param,) = pm.optimizer_rows(capture(ns, None), ns, recorder)[0].params
    terms = {t.symbol: t.value for t in param.rule.terms}
    assert terms["t"] == 3
    assert terms["bc1"] == pytest.approx(1 - 0.9**3)
    assert terms["bc2"] == pytest.approx(1 - 0.999**3)
    np.testing.assert_allclose(terms["m"], opt.state[w]["exp_avg"]._data)
    np.testing.assert_allclose(terms["v"], opt.state[w]["exp_avg_sq"]._data)
    g = w.grad._data.astype(np.float64)
    np.testing.assert_allclose(terms["m"], 0.9 * terms["m_prev"] + 0.1 * g, rtol=1e-5)
    assert dict(param.bias_corrections)["1 - β1^t"] == pytest.approx(1 - 0.9**3)


def test_a_parameter_with_a_none_grad_is_skipped_and_says_so(recorder):
    w = torch.tensor([1.0], requires_grad=True)
    unused = torch.tensor([2.0], requires_grad=True)
    opt = torch.optim.SGD([w, unused], lr=0.1)
    (w * 3).sum().backward()
    opt.step()
    ns = {"w": w, "unused": unused, "opt": opt}
    params = {p.name: p for p in pm.optimizer_rows(capture(ns, None), ns, recorder)[0].params}
    assert params["unused"].grad_state == "none" and params["unused"].rule is None
    assert params["w"].rule.matches


def test_training_history_records_loss_grad_norms_and_update_ratios(recorder):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    for _ in range(5):
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        opt.step()
    h = recorder.history
    assert h.iterations == 5
    expected = [5.0 * 0.64**k for k in range(5)]  # each step scales w by 0.8
    np.testing.assert_allclose(h.loss, expected, rtol=1e-5)
    norms = h.series(h.grad_norms, pm.names_by_id({"w": w}))
    np.testing.assert_array_equal(norms["w"][0], np.arange(5))
    np.testing.assert_allclose(norms["w"][1], [2 * np.sqrt(5.0) * 0.8**k for k in range(5)],
                               rtol=1e-5)
    ratios = h.series(h.update_ratios, pm.names_by_id({"w": w}))
    np.testing.assert_allclose(ratios["w"][1], 0.2, rtol=1e-5)  # ‖0.2 w‖ / ‖w‖
    header, rows = pm.training_table(h, pm.names_by_id({"w": w}))
    assert header == ("iteration", "loss", "grad_norm[w]", "update_ratio[w]")
    assert len(rows) == 5 and rows[0][1] == pytest.approx(5.0)


def test_recorder_starts_over_when_the_run_restarts(recorder):
    count = {"n": 0}
    recorder.backward_count = lambda: count["n"]
    w = torch.tensor([1.0], requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
        count["n"] += 1
    assert recorder.history.iterations == 3
    count["n"] = 0  # the session re-runs the script from the start (time travel back)
    w2 = torch.tensor([1.0], requires_grad=True)
    (w2 * 2).sum().backward()
    count["n"] += 1
    assert recorder.history.iterations == 1
    assert recorder.ledger.state(w2).contributions[0].label == "backward #1"
    recorder.catch_up()  # the run agrees with the recorder: nothing to forget
    assert recorder.history.iterations == 1
    count["n"] = 0  # travelled back before any backward(): no event says so, the session does
    recorder.catch_up()
    assert recorder.history.iterations == 0 and recorder.ledger.calls == 0


def test_compare_gives_parameter_grad_and_state_deltas():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    ns = {"w": w, "opt": opt}
    (w * w).sum().backward()
    a = capture(ns, None)
    opt.step()
    b = capture(ns, None, previous=a)
    rows = {(r.what, r.name): r for r in pm.compare(a, b)}
    np.testing.assert_allclose(rows["parameter", "w"].delta, [-0.2, -0.4], rtol=1e-6)
    assert not rows["grad", "w"].delta.any()  # step() does not touch .grad
    assert rows["grad", "w"].summary == "unchanged"
    state = rows["optimizer state", "opt: w.momentum_buffer"]
    assert state.delta is None and state.summary == "None → [2, 4]"
    header, table = pm.compare_table(pm.compare(a, b))
    assert header[0] == "what" and len(table) == 3


def test_csv_export_of_buffer_rows(recorder):
    w = torch.tensor([[1.0, 2.0]], requires_grad=True)
    (w * 3).sum().backward()
    text = pm.csv_text(*pm.buffer_table(rows_by_name({"w": w}, recorder).values()))
    lines = text.strip().splitlines()
    assert lines[0] == "name,group,shape,state,norm,grad,contributions"
    assert lines[1].startswith("w,,1x2,values,4.24")
    assert "3.0 3.0" in lines[1] and "backward #1: [[3, 3]]" in lines[1]


def test_heatmap_level_is_symmetric_and_shared():
    assert pm.heatmap_level([np.array([1.0, -3.0]), None, np.array([[2.0]])]) == 3.0
    assert pm.heatmap_level([np.zeros(2), None]) == 1.0
    assert pm.as_image(np.arange(3.0)).shape == (1, 3)
    assert pm.as_image(np.ones((2, 3, 4))).shape == (6, 4)


class _Head(torch.nn.Module):
    """nanoGPT's nesting in small: a ModuleList of blocks, each with named sublayers."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(5, 4)
        self.blocks = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.LayerNorm(4), torch.nn.Linear(4, 4)) for _ in range(2))
        self.lm_head = torch.nn.Linear(4, 5)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = x + block(x)
        return self.lm_head(x)


def _train_head(steps=3):
    torch.manual_seed(0)
    model = _Head()
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    idx = torch.tensor([[0, 1, 2, 3]])
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(idx).view(-1, 5), idx.view(-1))
        loss.backward()
        opt.step()
    return model


def test_the_curves_keep_the_parameter_names_learned_at_a_rest(recorder):
    model = _train_head()
    h = recorder.history
    count = len(list(model.parameters()))
    assert set(h.series(h.grad_norms, {})) == {f"param {k}" for k in range(1, count + 1)}
    assert h.unnamed({})
    before = h.version
    assert h.learn_names(pm.names_by_id({"model": model}))
    assert h.version > before and not h.unnamed({})
    assert not h.learn_names(pm.names_by_id({"model": model}))  # nothing new: told once
    expected = [name for name, _ in model.named_parameters()]
    # drawn (or told) with the names of a point before the model existed: still its names
    assert sorted(h.series(h.grad_norms, {})) == sorted(f"model.{n}" for n in expected)
    assert sorted(h.series(h.update_ratios, {})) == sorted(f"model.{n}" for n in expected)


def test_a_learned_name_another_tensor_now_has_is_not_given_twice(recorder):
    w = torch.tensor([1.0], requires_grad=True)
    v = torch.tensor([2.0], requires_grad=True)
    ((w * v).sum()).backward()
    h = recorder.history
    h.learn_names({id(w): "w"})
    assert set(h.series(h.grad_norms, {id(v): "w"})) == {"w", "param 2"}  # v is 'w' now


GPT_LIKE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(4)
        self.sa = nn.Linear(4, 4)
    def forward(self, x):
        return x + self.sa(self.ln(x))
class GPTLanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding_table = nn.Embedding(5, 4)
        self.blocks = nn.Sequential(*[Block() for _ in range(2)])
        self.lm_head = nn.Linear(4, 5)
    def forward(self, idx):
        return self.lm_head(self.blocks(self.token_embedding_table(idx)))
model = GPTLanguageModel()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
idx = torch.tensor([[0, 1, 2, 3]])
for step in range(3):
    loss = F.cross_entropy(model(idx).view(-1, 5), idx.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
"""


def test_a_gpt_model_s_curves_are_told_by_parameter_name():
    # the worker tells the curves while the script runs (the model's names unknown yet) and
    # at its rest: the window must end with named_parameters' names, as 096's GPT shows them
    from engine import events as engine_events
    from engine.session import Session
    from engine.session import events as session_events
    from engine.session.told import PanelsTeller
    from engine.session.wire import history_from

    session = Session(GPT_LIKE)
    teller = PanelsTeller(session)
    told = []

    def flush(event):  # the worker sends the curves' news while the script runs
        if event.kind == engine_events.BACKWARD_STARTED:
            told.append(teller.running())

    def rest(event):
        teller.follow(event)
        if isinstance(event, session_events.AT_REST):
            told.append(teller.running())  # the last news, sent after the last step
            told.append(teller.at_rest(event, session.visible_names(),
                                       session.visible_tensors()))

    session.subscribe(rest)
    unsubscribe = engine_events.hub.subscribe(flush)
    try:
        session.continue_()
    finally:
        unsubscribe()
        teller.recorder.detach()
    assert session.status == "finished", session.error
    shown = None
    for data in told:
        if data is not None and data.history is not None:
            shown = history_from(data.history, shown)
    model = session.visible_names()["model"]
    assert sorted(shown.series(shown.grad_norms, {})) == sorted(
        f"model.{name}" for name, _ in model.named_parameters())


def test_a_grad_kept_as_it_was_is_unchanged_even_with_nan(recorder):
    # compared by identity first: np.array_equal calls an unchanged NaN grad changed
    w = torch.tensor([1.0, float("nan")], requires_grad=True)
    (w * w).sum().backward()  # w.grad = [2, nan]
    ns = {"w": w}
    before = capture(ns, None)
    after = capture(ns, None, previous=before)
    assert after.tensors["w"].grad is before.tensors["w"].grad  # the snapshot shares it
    rows = pm.buffer_rows(after, ns, recorder, before)
    assert [r.changed for r in rows] == [False]
    assert pm.buffer_rows(after, ns, recorder, pm.buffer_rows(before, ns, recorder))[0].changed \
        is False
