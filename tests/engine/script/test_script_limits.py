"""Every hostile attack ends by its limits, quickly and within its memory budget, even when the
work would happen inside one C call (``pow(3, x, x)``, ``repr`` of a self-sharing list,
``np.outer``), where ``Interpreter.stop()`` cannot reach it.

Each attack runs in its own forked child of a worker process (``python test_script_limits.py
--worker``): the parent kills a child that outlives ``ATTACK_SECONDS`` (a hang in C code fails the
test instead of freezing it) and each child reports its error and the growth of its peak resident
memory (``VmHWM`` after ``clear_refs``) over its resident memory when it started.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CORPUS = sorted((HERE / "hostile").glob("*.py"))
ROOT = HERE.parents[2]

MAX_TOTAL_BYTES = 16 << 20
# per attack, wall-clock on a shared machine: a hang, not a slow attack
ATTACK_SECONDS = int(os.environ.get("GS_ATTACK_SECONDS", 30))
MEMORY_TOLERANCE = 1.10  # peak growth may exceed the budget by this factor at most


def _limits():
    from engine.script import Limits

    return Limits(max_statements=200_000, max_tensor_elements=1_000_000,
                  max_total_bytes=MAX_TOTAL_BYTES, max_recursion=50, max_string=100_000,
                  max_list=100_000, max_int_bits=10_000, max_output=100_000)


def _budget() -> int:
    from engine.script.memory import PROCESS_SLACK

    return MAX_TOTAL_BYTES + PROCESS_SLACK


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _run_one(path: str) -> dict:
    """In the forked child: run one attack, report its error and peak memory growth."""
    import tempfile

    from engine.script import Interpreter, ScriptError

    source = Path(path).read_text(encoding="utf-8")
    os.chdir(tempfile.mkdtemp())
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # VmHWM := VmRSS
    except OSError:
        pass
    start = _status("VmRSS")
    out = {"path": path}
    try:
        Interpreter(source, limits=_limits(), filename=Path(path).name).run()
        out["kind"] = None
    except ScriptError as e:
        out.update(kind=e.kind, line=e.line, message=e.message)
    except BaseException as e:
        out.update(kind="escaped", message=f"{type(e).__name__}: {e}")
    out["peak_growth"] = _status("VmHWM") - start
    return out


def _worker(paths) -> None:
    """Fork a child per attack; kill it after ATTACK_SECONDS; print one JSON line per attack."""
    import select
    import signal
    import time

    importlib.import_module("engine.script")  # imported once, before forking

    for path in paths:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                data = json.dumps(_run_one(path)).encode()
            except BaseException as e:
                data = json.dumps({"path": path, "kind": "escaped", "message": repr(e)}).encode()
            os.write(w, data)
            os._exit(0)
        os.close(w)
        deadline = time.monotonic() + ATTACK_SECONDS
        chunks = []
        timed_out = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        os.close(r)
        _, status, usage = os.wait4(pid, 0)
        if timed_out:
            result = {"path": path, "kind": "timeout"}
        elif chunks:
            result = json.loads(b"".join(chunks))
        else:
            result = {"path": path, "kind": "crashed", "message": f"status {status}"}
        result["cpu"] = usage.ru_utime + usage.ru_stime
        print(json.dumps(result), flush=True)


def _expected(path: Path) -> tuple[str, int | None]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    words = first.removeprefix("# expect: ").split()
    line = int(words[2]) if len(words) >= 3 and words[1] == "line" else None
    return words[0], line


@pytest.fixture(scope="module")
def results():
    if not Path("/proc/self/status").exists() or not hasattr(os, "fork"):
        pytest.skip("needs Linux /proc and fork")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", *map(str, CORPUS)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=ATTACK_SECONDS * len(CORPUS) + 60)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == len(CORPUS), proc.stderr[-3000:]
    return {Path(r["path"]).name: r for r in rows}


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_attack_ends_by_its_limits_in_time_and_memory(results, path):
    row = results[path.name]
    kind, line = _expected(path)
    assert row["kind"] != "timeout", f"{path.name} ran for more than {ATTACK_SECONDS}s"
    assert row["kind"] == kind, row
    if line is not None:
        assert row.get("line") == line, row
    budget = _budget()
    assert row["peak_growth"] <= budget * MEMORY_TOLERANCE, (
        f"{path.name}: peak memory grew by {row['peak_growth'] >> 20} MiB (the budget is "
        f"{budget >> 20} MiB)")


# -- breakpoint conditions: evaluated by the interpreter, with its limits -----------------------

CONDITION_SCRIPT = """
import torch
import numpy as np
x = 3
t = torch.zeros(1000, 1000)
a = [0]
b = [0]
for k in range(100):
    a = [a, a]
    b = [b, b]
"""

CONDITION_ATTACKS = {
    "'a' * 10**10 == ''": "limit",  # a 10 GB string
    "'ab' * 2**31 == ''": "limit",
    "10**10**10 > 0": "limit",
    "pow(7, 10**9) > 0": "limit",
    "t.tolist() == []": "limit",
    "len(str(a)) > 0": "limit",
    "a == b": "limit",
    "-" * 5000 + "x > 0": "limit",  # a very deep expression
    "(" * 300 + "x" + ")" * 300: "syntax",
    "x.__class__.__base__ is int": "forbidden",
    "np.zeros((10**5, 10**5)).sum() > 0": "limit",
}


def _conditions_worker() -> None:
    """Each condition attack against a paused run, printed as JSON (in a subprocess: a hang fails
    the test by its timeout instead of freezing it)."""
    from engine.script import Interpreter, ScriptError

    interp = Interpreter(CONDITION_SCRIPT, limits=_limits())
    out = {}
    for pause in interp.steps():
        if pause.line == 5:  # paused inside the run, before t = ...: evaluate with x known
            out["x > 2"] = interp.evaluate_condition("x > 2", {**pause.globals, **pause.locals})
    names = interp.globals
    for text in CONDITION_ATTACKS:
        try:
            out[text] = interp.evaluate_condition(text, names)
        except ScriptError as e:
            out[text] = e.kind
    out["t.sum() == 0"] = interp.evaluate_condition("t.sum() == 0", names)
    print(json.dumps(out))


def test_breakpoint_conditions_run_under_the_limits():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, __file__, "--conditions"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out.pop("x > 2") is True
    assert out.pop("t.sum() == 0") is True
    assert out == CONDITION_ATTACKS


# -- what the checks must still let through ------------------------------------------------------

ORDINARY = """
import numpy as np
a = pow(3, 200, 1000007)
b = round(1234, -2) + round(2.5) + round(1.25, 1)
c = int('ff', 16) + int('0x10', 0) + int(' 12 ')
d = list(map(pow, [2, 3], [3, 2]))
e = sorted(['b', 'a', 'C'], key=str.lower if False else len)
f = [max([[1, 2], [3]], key=len), min([3, 1, 2], key=lambda v: -v)]
g = list(filter(None, [0, 1, 2]))
h = ['%s' % ([1, [2]],), '{!r}'.format((1, 2)), f'{[1, 2]}', str({'k': [1]})]
xs = [[2, 1], [1, 2]]
xs.sort(key=sorted)
n = [[1], [2]].count([1]) + [[1], [2]].index([2])
arr = np.outer(np.ones(3), np.arange(4.0))
s = np.add(np.ones((2, 1)), np.ones(3)).shape
big = [np.ones(100_000) for _ in range(3)]
big = None
more = [np.ones(100_000) for _ in range(3)]
z = np.zeros(3, dtype=np.float32).tolist()
m = list(map(repr, [1, 'x']))
"""


def test_ordinary_scripts_still_run():
    from engine.script import Limits, run

    ns = run(ORDINARY, limits=Limits(max_total_bytes=8 << 20))
    assert ns["a"] == pow(3, 200, 1000007)
    assert ns["b"] == 1200 + 2 + 1.2
    assert ns["c"] == 255 + 16 + 12
    assert ns["d"] == [8, 9]
    assert ns["f"] == [[1, 2], 3]
    assert ns["g"] == [1, 2]
    assert ns["h"] == ["[1, [2]]", "(1, 2)", "[1, 2]", "{'k': [1]}"]
    assert ns["xs"] == [[2, 1], [1, 2]]
    assert ns["n"] == 2
    assert ns["arr"].shape == (3, 4) and ns["s"] == (2, 3)
    assert ns["z"] == [0.0, 0.0, 0.0] and ns["m"] == ["1", "'x'"]


def test_builtins_handed_to_scripts_are_the_checked_ones():
    from engine.script import Limits, ScriptError, run

    ns = run("p = pow\nr = repr(pow)\n")
    assert ns["p"] is not pow and ns["r"] == "<built-in function pow>"
    with pytest.raises(ScriptError) as err:
        run("p = pow\nx = p(2, 10**9)\n", limits=Limits())
    assert err.value.kind == "limit" and err.value.line == 2


def test_numpy_arrays_count_in_the_memory_budget():
    from engine.script import Interpreter, Limits, ScriptError

    interp = Interpreter("import numpy as np\nkeep = [np.ones(400_000) for i in range(10)]\n",
                         limits=Limits(max_total_bytes=16 << 20))
    with pytest.raises(ScriptError) as err:
        interp.run()
    assert err.value.kind == "limit" and "memory" in err.value.message


def test_error_messages_are_measured_before_they_are_made():
    from engine.script.measure import exception_text

    a = [0]
    for _ in range(100):
        a = [a, a]
    assert exception_text(ValueError(a), _limits()) == "(the message is too large to show)"
    assert exception_text(ValueError("short"), _limits()) == "short"


if __name__ == "__main__" and sys.argv[1:2] == ["--conditions"]:
    sys.path.insert(0, str(ROOT))
    _conditions_worker()

if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    sys.path.insert(0, str(ROOT))
    _worker(sys.argv[2:])
