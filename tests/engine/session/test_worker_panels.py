"""The panels' data from the script's worker process is what the panels' models give in process:
the same buffer rows, optimizer rows (update rules included), training curves and predict-mode
questions at every point, so a panel cannot tell where the script ran."""

from dataclasses import fields, is_dataclass

import numpy as np
import pytest

from engine.session import Session
from engine.session import panels_model as pm
from engine.session.events import Status
from engine.session.wire import HistoryData, HistorySender, foreign_objects, history_from
from engine.session.worker import RemoteSession, shutdown_spares

# Two backward() calls into one .grad (one through a fan-in), an Adam step, a zero_grad(), a loop
TRAINING = """\
import torch
w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
b = torch.tensor(0.3, requires_grad=True)
opt = torch.optim.Adam([w, b], lr=0.1)
(w * w).sum().backward()
((w * b).sum() + b).backward()
opt.step()
opt.zero_grad()
for i in range(6):
    loss = ((w * b).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
    opt.zero_grad()
z = loss.item()
"""
LOOP_LINE = 10


@pytest.fixture(scope="module", autouse=True)
def _no_spare_left():
    yield
    shutdown_spares()


class InProcess:
    """What the window's panels read when the script runs in this process."""

    def __init__(self, source: str) -> None:
        self.recorder = pm.PanelsRecorder().attach()
        self.session = Session(source)
        self.recorder.backward_count = lambda: self.session.counters.backward
        self.session.subscribe(self.recorder.follow)

    def close(self) -> None:
        self.recorder.detach()


def _assert_same(a, b, where="value"):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)
    elif is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in fields(a):
            if f.name not in ("optimizer", "param"):  # a StepRecord's live objects
                _assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _panels_here(here: InProcess, previous):
    s = here.session
    live, snap = s.visible_names(), s.snapshot()
    pause = s.pause_state
    stmt = pause.stmt if pause is not None and pause.kind == "statement" else None
    history = here.recorder.history
    names = pm.names_by_id(live)
    return (pm.buffer_rows(snap, live, here.recorder, previous),
            pm.optimizer_rows(snap, live, here.recorder, True),
            (list(history.loss), history.series(history.grad_norms, names),
             history.series(history.update_ratios, names)),
            pm.predictions(stmt, live))


def _panels_there(there: RemoteSession, previous):
    snap, rec = there.snapshot(), there.panels
    history = rec.history
    return (pm.buffer_rows(snap, {}, rec, previous),
            pm.optimizer_rows(snap, {}, rec, True),
            (list(history.loss), history.series(history.grad_norms, {}),
             history.series(history.update_ratios, {})),
            list(rec.predictions))


def test_every_panel_reads_the_same_through_the_worker():
    here, there = InProcess(TRAINING), RemoteSession(TRAINING)
    try:
        rows_here = rows_there = ()
        commands = ([("step_over", ())] * 8 + [("step_into", ())] * 3
                    + [("run_to_line", (LOOP_LINE + 1,)), ("run_iterations", (3,)),
                       ("go_to", (4,)), ("step_over", ()), ("go_to", (1,)),
                       ("continue_", ()), ("restart", ()), ("step_over", ())])
        checked = set()
        for name, args in commands:
            getattr(here.session, name)(*args)
            getattr(there, name)(*args)
            assert there.status == here.session.status, name
            a, b = _panels_here(here, rows_here), _panels_there(there, rows_there)
            _assert_same(a, b, name)
            rows_here, rows_there = a[0], b[0]
            checked |= {"contributions" for r in a[0] if len(r.contributions) > 1}
            checked |= {"fan-in" for r in a[0] for c in r.contributions if c.paths}
            checked |= {"rule" for g in a[1] for p in g.params if p.rule is not None}
            checked |= {"curves"} if a[2][1] else set()
            checked |= {"predictions"} if a[3] else set()
        assert here.session.status == Status.PAUSED
        # the script and the commands reach every part the panels draw
        assert checked == {"contributions", "fan-in", "rule", "curves", "predictions"}
    finally:
        here.close()
        there.close()


def test_what_the_panels_receive_is_plain_data():
    there = RemoteSession(TRAINING)
    got = []
    real = there._show_panels
    there._show_panels = lambda data: (got.append(data), real(data))
    try:
        there.run_to_line(LOOP_LINE + 2)
        there.run_iterations(2)
        assert got and any(d.at_rest and d.stories for d in got)
        for data in got:
            assert foreign_objects(data) == []
    finally:
        there.close()


def test_the_curves_cross_once_then_only_what_each_send_adds():
    history = pm.TrainingHistory()
    sender = HistorySender()
    first = sender.data(history, {})
    assert not first.appended and len(first.loss) == 0
    assert sender.data(history, {}) is None  # nothing new: nothing sent

    history.loss.extend([3.0, 2.0])
    history.version += 1
    grown = sender.data(history, {})
    assert grown.appended and list(grown.loss) == [3.0, 2.0]
    shown = history_from(grown, history_from(first))
    history.loss.append(1.0)
    history.version += 1
    third = sender.data(history, {})
    assert third.appended and list(third.loss) == [1.0]
    again = history_from(third, shown)
    assert again is shown and list(again.loss) == [3.0, 2.0, 1.0]

    restarted = pm.TrainingHistory()  # a new run: the whole history again
    whole = sender.data(restarted, {})
    assert isinstance(whole, HistoryData) and not whole.appended
    assert list(history_from(whole, shown).loss) == []
