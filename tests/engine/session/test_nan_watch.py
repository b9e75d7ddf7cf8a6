"""The NaN watch pauses where a NaN or an infinity first appears, not where it is carried on.

Each script is also run by PyTorch: the values the watch must not pause at are non-finite there
too (so a missing pause is the watch's doing, not a value the engine got wrong).
"""

import math

import torch

from engine.session import Session


def _pauses(source: str, limit: int = 10) -> list:
    """(line, culprits) of each pause ``continue_`` makes with break_on_nan, then the end."""
    s = Session(source)
    paused = []
    s.subscribe(lambda e: paused.append(e) if e.kind == "paused" else None)
    s.break_on_nan(True)
    out = []
    for _ in range(limit):
        s.continue_()
        if s.status != "paused":
            out.append(str(s.status))
            return out
        out.append((s.position.line, paused[-1].culprits))
    return out


def _torch(source: str) -> dict:
    names: dict = {}
    exec(compile(source, "<torch>", "exec"), names)  # the test's own scripts, in real torch
    return names


def _non_finite(t) -> bool:
    return t is not None and not bool(torch.isfinite(t).all())


CARRIED = """\
import torch
x = torch.tensor([-1.0], requires_grad=True)
y = torch.log(x)
z = y.sum()
z.backward()
print("end")
"""


def test_continue_after_a_nan_does_not_pause_where_it_is_only_carried():
    ns = _torch(CARRIED)
    assert _non_finite(ns["y"]) and _non_finite(ns["z"])  # z only carries y's NaN
    assert _pauses(CARRIED) == [(4, (("op", "LogBackward0"), ("tensor", "y"))), "finished"]


NEW_ELSEWHERE = """\
import torch
x = torch.tensor([-1.0], requires_grad=True)
y = torch.log(x)
z = y * 2
u = torch.tensor([0.0, 1.0], requires_grad=True)
v = torch.log(u)
w = v + z
print("end")
"""


def test_a_new_nan_elsewhere_still_pauses_after_a_carried_one():
    ns = _torch(NEW_ELSEWHERE)
    assert all(_non_finite(ns[n]) for n in ("y", "z", "v", "w"))
    assert _non_finite(ns["v"]) and torch.isfinite(ns["u"]).all()
    assert _pauses(NEW_ELSEWHERE) == [
        (4, (("op", "LogBackward0"), ("tensor", "y"))),
        (7, (("op", "LogBackward0"), ("tensor", "v"))),
        "finished",
    ]


EACH_ITERATION = """\
import torch
for i in range(3):
    x = torch.tensor([-1.0 * i], requires_grad=True)
    y = torch.log(x)
    z = y * 2
"""


def test_a_nan_made_anew_in_each_iteration_pauses_once_per_iteration():
    s = Session(EACH_ITERATION)
    paused = []
    s.subscribe(lambda e: paused.append(e) if e.kind == "paused" else None)
    s.break_on_nan(True)
    where = []
    for _ in range(6):
        s.continue_()
        if s.status != "paused":
            break
        where.append((s.position.line, s.position.iteration, paused[-1].culprits))
    assert s.status == "finished"
    assert where == [(5, i, (("op", "LogBackward0"), ("tensor", "y"))) for i in range(3)]


THROUGH_BACKWARD = """\
import torch
x = torch.tensor([-1.0, 4.0], requires_grad=True)
y = torch.sqrt(x)
loss = y.sum()
loss.backward()
g = x.grad
print("end")
"""


def test_a_forward_nan_is_not_reported_again_by_the_backward_nodes_that_carry_it():
    ns = _torch(THROUGH_BACKWARD)
    assert math.isnan(ns["x"].grad[0].item())  # the backward carries the NaN into x.grad
    assert _pauses(THROUGH_BACKWARD) == [(4, (("op", "SqrtBackward0"), ("tensor", "y"))),
                                         "finished"]


FROM_THE_BACKWARD = """\
import torch
w = torch.tensor([0.0, 1.0], requires_grad=True)
loss = torch.sqrt(w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
z = w * 2
print("end")
"""


def test_a_new_infinity_in_a_gradient_pauses_and_what_it_feeds_under_no_grad_does_not():
    ns = _torch(FROM_THE_BACKWARD)
    assert torch.isfinite(ns["loss"]) and math.isinf(ns["w"].grad[0].item())
    assert _non_finite(ns["w"]) and _non_finite(ns["z"])
    # in the backward pass, at the node that computed it
    assert _pauses(FROM_THE_BACKWARD) == [(4, (("op", "SqrtBackward0"),)), "finished"]


MADE_UNDER_NO_GRAD = """\
import torch
w = torch.ones(2)
b = w * 2
w[0] = float('nan')
c = b + 1
"""


def test_a_nan_written_from_finite_values_still_pauses():
    assert _pauses(MADE_UNDER_NO_GRAD) == [(5, (("tensor", "w"),)), "finished"]
