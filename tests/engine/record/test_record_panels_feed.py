"""The replay tells the panels' models what the live engine's events would: every optimizer's
update rule, filled in with the recorded numbers, reproduces torch's step."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

import engine.record as record
from engine.files import load
from engine.record.player import RecordedSession
from engine.session import panels_model as pm

pytestmark = pytest.mark.torch

OPTIMIZERS = {
    "SGD": lambda ps: torch.optim.SGD(ps, lr=0.1),
    "SGD momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1),
    "SGD nesterov + weight decay": lambda ps: torch.optim.SGD(
        ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": lambda ps: torch.optim.Adam(ps, lr=0.05, weight_decay=0.01),
    "AdamW": lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "RMSprop": lambda ps: torch.optim.RMSprop(ps, lr=0.01),
    "Adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.01),
}


def _session(tmp_path, make, iterations=3, scheduler=None, lrs=None):
    """A recorded training run; ``scheduler(opt)`` steps after each ``opt.step()``, and ``lrs``
    collects the lr each step ran with."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = make(model.parameters())
    sched = scheduler(opt) if scheduler else None
    x, y = torch.randn(5, 3), torch.randn(5, 1)
    path = tmp_path / "run.gstep"
    with record.session(path, model=model, optimizer=opt, model_prefix="model",
                        optimizer_name="opt"):
        for _ in range(iterations):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            if lrs is not None:
                lrs.append(opt.param_groups[0]["lr"])
            opt.step()
            if sched is not None:
                sched.step()
    return RecordedSession(load(path))


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_every_recorded_step_is_reproduced_by_its_update_rule(tmp_path, kind):
    session = _session(tmp_path, OPTIMIZERS[kind])
    recorder = pm.PanelsRecorder()
    per = session.steps_per_backward + 1
    for i in (1, 2):  # iteration i's points come after step i - 1
        session.go_to(i * per)
        recorder.show_replay(session.panels_feed())
        rows = pm.optimizer_rows(session.snapshot(), {}, recorder, True)
        params = [p for g in rows for p in g.params]
        assert len(params) == 4 and rows[0].kind == kind.split()[0]
        for p in params:
            assert p.rule is not None and p.at_step
            assert p.rule.matches is True, (kind, p.name, p.rule.equations)
            assert len(p.rule.terms) > 2  # numbers, not just the plain delta
            assert p.state or kind == "SGD"  # the recorded state after the step (plain SGD: none)


def test_each_step_shows_the_lr_it_ran_with_when_a_scheduler_changes_it(tmp_path):
    lrs: list = []
    session = _session(tmp_path, OPTIMIZERS["Adam"], iterations=4, lrs=lrs,
                       scheduler=lambda o: torch.optim.lr_scheduler.StepLR(o, 1, gamma=0.5))
    assert len(set(lrs)) == 4  # the scheduler did change it
    recorder = pm.PanelsRecorder()
    per = session.steps_per_backward + 1
    for i in (1, 2, 3):  # after step i - 1, which ran with lrs[i - 1]
        session.go_to(i * per)
        recorder.show_replay(session.panels_feed())
        rows = pm.optimizer_rows(session.snapshot(), {}, recorder, True)
        assert dict(rows[0].hyper)["lr"] == pytest.approx(lrs[i - 1]), i
        for p in (p for g in rows for p in g.params):
            assert p.rule.matches is True, (i, p.name, p.rule.equations)


def test_the_feed_follows_the_replay_point(tmp_path):
    session = _session(tmp_path, OPTIMIZERS["Adam"])
    per = session.steps_per_backward + 1
    session.go_to(0)  # iteration 1 before its backward: nothing yet
    feed = session.panels_feed()
    assert list(feed.history.loss) == [] and feed.steps == {}
    assert session.snapshot().optimizer == {}
    session.go_to(per - 1)  # iteration 1's backward done: its loss and grad norms, no step
    feed = session.panels_feed()
    assert len(feed.history.loss) == 1 and feed.history.series(feed.history.grad_norms, {})
    session.go_to(len(session.timeline) - 1)  # the end: three iterations, three steps
    feed = session.panels_feed()
    assert len(feed.history.loss) == 3
    assert all(r.after is None for r in feed.steps.values())  # not recorded after the last step
    assert session.counters.step == 3
    keys = {k[2] for k in session.snapshot().optimizer}
    assert keys == {"step", "exp_avg", "exp_avg_sq"}
