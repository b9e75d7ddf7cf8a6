"""The allocation budget (engine/budget.py) holds on every engine path, not only on the
interpreter's operators: each script below is refused with ``ScriptError(kind="limit")`` at its
line, before the engine allocates (peak resident memory, measured in a fresh process, grows by
less than the byte budget + 10%)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import engine
from engine import budget

ROOT = Path(__file__).resolve().parents[2]

SMALL = dict(max_tensor_elements=10**6, max_total_bytes=64 << 20)
# tolist: the tensor itself fits (400 MB of 10**8 float32), its list would not
WIDE = dict(max_tensor_elements=10**8, max_total_bytes=512 << 20)

CASES = {
    # (limits, the script after its two import lines, the refused line within it)
    "map_zeros": (SMALL, "ys = list(map(torch.zeros, [10**9]))", 1),
    "sorted_key_ones": (SMALL, "ys = sorted([1], key=lambda _: torch.ones(10**9))", 1),
    "nn_linear": (SMALL, "m = nn.Linear(30000, 30000)", 1),
    "randperm": (SMALL, "p = torch.randperm(10**9)", 1),
    "cat": (SMALL, "x = torch.ones(10**4)\ny = torch.cat([x] * 2000)", 2),
    "stack_map": (SMALL, "x = torch.ones(10**4)\ny = list(map(torch.stack, [[x] * 2000]))", 2),
    "broadcast_add": (SMALL, "a = torch.ones(10**5)\nb = torch.ones(10**5)\n"
                             "c = torch.add(a[:, None], b[None, :])", 3),
    "matmul_outer": (SMALL, "a = torch.ones(10**5, 1)\nb = torch.ones(1, 10**5)\n"
                            "c = torch.matmul(a, b)", 3),
    "repeat_map": (SMALL, "x = torch.ones(10**4)\ny = list(map(lambda t: t.repeat(2000), [x]))", 2),
    "tile": (SMALL, "x = torch.ones(10**4)\ny = x.tile(2000)", 2),
    "new_zeros": (SMALL, "x = torch.ones(1)\ny = x.new_zeros(10**9)", 2),
    "tolist": (WIDE, "x = torch.zeros(10**8)\ny = x.tolist()", 2),
    "tolist_map": (WIDE, "x = torch.zeros(10**8)\ny = list(map(torch.Tensor.tolist, [x]))", 2),
}

_CHILD = textwrap.dedent("""
    import json, resource, sys
    sys.path.insert(0, {root!r})
    import engine, engine.nn
    from engine.script import Limits, ScriptError, run

    limits = Limits(**{limits!r})
    run("import torch\\nx = torch.ones(100, 100) @ torch.ones(100, 100)", limits=limits)  # warm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    source = "import torch\\nimport torch.nn as nn\\n" + {body!r}
    try:
        run(source, limits=limits)
        out = {{"kind": None}}
    except ScriptError as e:
        out = {{"kind": e.kind, "line": e.line, "message": e.message}}
    out["growth"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    print(json.dumps(out))
""")


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_before_allocating(name):
    limits, body, line = CASES[name]
    child = _CHILD.format(root=str(ROOT), limits=limits, body=body)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["kind"] == "limit", out
    assert out["line"] == line + 2, out  # the body starts at the script's line 3
    assert "too large" in out["message"] or "too long" in out["message"] \
        or "memory" in out["message"], out
    assert out["growth"] < 1.1 * limits["max_total_bytes"], out


# -- the engine alone, under a Budget --------------------------------------------------------------

def _refused(fn):
    with budget.use(budget.Budget(10**6, max_bytes=64 << 20, max_list=10**6, max_string=10**6)):
        with pytest.raises(budget.BudgetExceeded):
            fn()


@pytest.mark.parametrize("make", [
    lambda: engine.zeros(10**9), lambda: engine.ones(10**9), lambda: engine.empty(10**9),
    lambda: engine.full((10**9,), 1.0), lambda: engine.rand(10**9), lambda: engine.randn(10**9),
    lambda: engine.randint(0, 5, (10**9,)), lambda: engine.randperm(10**9),
    lambda: engine.arange(10**9), lambda: engine.linspace(0, 1, 10**9), lambda: engine.eye(10**5),
    lambda: engine.tensor([np.ones(10**4)] * 2000), lambda: engine.Tensor(10**9),
    lambda: engine.ones(1).new_full((10**9,), 2.0),
    lambda: engine.zeros_like(engine.ones(1).expand(10**8)),
    lambda: engine.ones(1).expand(10**8).contiguous(),
    lambda: engine.ones(1000, 1, 30, 1) @ engine.ones(1000, 1, 30),
    lambda: engine.where(engine.ones(10**5)[:, None] > 0, 1.0, engine.ones(10**5)),
    lambda: engine.nn.Embedding(10**6, 1000),
])
def test_engine_paths_refused(make):
    _refused(make)


def test_printing_is_measured():
    big = engine.zeros(2000, 400)
    engine.set_printoptions(threshold=10**7)
    try:
        _refused(lambda: str(big))
    finally:
        engine.set_printoptions(profile="default")


def test_no_budget_no_checks():
    outer = budget.guard  # a paused run's (another test's window), if any
    with budget.use(None):
        assert engine.ones(10**5)[:, None].shape == (10**5, 1)
        with budget.use(budget.Budget(10**6)):
            x = engine.ones(1000, 1000)
            assert float((x @ x).sum()) == 1000.0 ** 3  # within the budget: runs
        assert budget.guard is None
    assert budget.guard is outer


def test_a_tensor_from_a_list_of_tensors_is_counted_by_elements():
    # torch.tensor([t.tensor(1.0), t.tensor(2.0)]): each element's numel, not its shape
    with budget.use(budget.Budget(10)):
        assert engine.tensor([engine.tensor(1.0), engine.tensor(2.0)]).tolist() == [1.0, 2.0]
        with pytest.raises(budget.BudgetExceeded):
            engine.tensor([engine.ones(3), engine.ones(3), engine.ones(3), engine.ones(3)])


def test_a_paused_run_holds_the_rest_of_the_process_to_no_limits():
    from engine.script import Interpreter, Limits

    before = budget.guard
    steps = Interpreter("import torch\nx = torch.ones(2)\ny = x + 1\n",
                        limits=Limits(max_tensor_elements=100)).steps()
    next(steps)  # paused before line 1
    next(steps)  # paused before line 2
    assert budget.guard is before  # outside the script, the process's own budget
    assert engine.zeros(1000).numel() == 1000
    for _ in steps:
        pass
    assert budget.guard is before
