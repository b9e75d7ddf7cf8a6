"""Run the teaching-program corpus under real PyTorch, under ``import engine as torch`` and
through gradstep's script interpreter, and compare what they print.

Three ways to run a program (``MODES``):

* ``torch``       - the oracle: the file exec'd with the real ``torch`` importable;
* ``engine``      - the same, with ``sys.modules['torch']`` (and ``torch.nn``, ``torch.optim``,
                    ``torch.utils.data``, ...) being the engine's modules;
* ``interpreter`` - ``engine.script.Interpreter(source).run()``, printed text from ``output``.

Every run happens in a child process (``python -m tests.corpus.run_corpus MODE PROGRAM...``).
One child runs several programs one after the other, each in a fresh namespace, with the global
state reset before each (grad mode on, default print options and dtype, seed 0) and a per-program
time limit (``TIMEOUT`` seconds, SIGALRM); a child that dies leaves the programs it had not
reported to be re-run one per child. A child prints one JSON line per program:
``{"program", "mode", "output", "error", "seconds"}``.

``compare(expected, actual)`` splits both texts into tokens (numbers, identifiers, single
characters; whitespace separates and is otherwise ignored; object addresses are masked) and
compares numbers with ``RTOL``/``ATOL`` and every other token exactly. It returns None when they
match, else a description of the first difference.

Command line: ``python -m tests.corpus.run_corpus report`` runs the whole corpus on all three
paths and prints a table; ``python -m tests.corpus.run_corpus diff PROGRAM`` shows one program's
outputs side by side.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS_DIR = HERE / "programs"
MODES = ("torch", "engine", "interpreter")
TIMEOUT = 60  # seconds per program
RTOL = 1e-4
ATOL = 1e-5


def programs() -> list[Path]:
    return sorted(PROGRAMS_DIR.glob("[0-9][0-9][0-9]_*.py"))


# -- comparison ----------------------------------------------------------------------------------

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_TOKEN = re.compile(r"""
    (?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<other>\S)
""", re.VERBOSE)
_NUMBER_WORDS = {"nan", "inf"}


def mask(text: str) -> str:
    return _ADDRESS.sub("0x?", text)


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: kind 'num' for numbers (nan and inf too), else 'tok'."""
    out = []
    for m in _TOKEN.finditer(mask(text)):
        if m.lastgroup == "num" or (m.lastgroup == "word" and m.group() in _NUMBER_WORDS):
            out.append(("num", m.group()))
        else:
            out.append(("tok", m.group()))
    return out


def _last_place(a: str, b: str) -> float:
    """One unit in the last printed place of two plain decimals printed alike (``4.905`` and
    ``4.904``: 0.001), else 0: two values within tolerance can still round to neighbours."""
    if "e" in a.lower() or "e" in b.lower() or "." not in a or "." not in b:
        return 0.0
    places = len(a.split(".")[1])
    return 10.0 ** -places if places == len(b.split(".")[1]) else 0.0


def _close(a: str, b: str, rtol: float, atol: float) -> bool:
    if a == b:
        return True
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    if abs(x - y) <= atol + rtol * abs(y):
        return True
    # printed with few digits, values within tolerance may round one unit apart: allowed while
    # that unit is small beside the value (4.905 against 4.904), never for a coarse print (0.5
    # against 0.6 is a real difference)
    unit = _last_place(a, b)
    return 0 < unit <= 1e-3 * max(abs(x), abs(y)) and abs(x - y) <= unit * 1.000001 + atol


def compare(expected: str, actual: str, rtol: float = RTOL, atol: float = ATOL) -> str | None:
    """None when ``actual`` matches ``expected`` token by token, else where it first differs."""
    want, got = tokens(expected), tokens(actual)
    for i, (w, g) in enumerate(zip(want, got)):
        same = (w[0] == g[0] == "num" and _close(g[1], w[1], rtol, atol)) or w == g
        if not same:
            ctx_w = " ".join(t for _, t in want[max(0, i - 8):i + 8])
            ctx_g = " ".join(t for _, t in got[max(0, i - 8):i + 8])
            return (f"token {i}: expected {w[1]!r}, got {g[1]!r}\n"
                    f"  expected ... {ctx_w} ...\n  got      ... {ctx_g} ...")
    if len(want) != len(got):
        extra = want[len(got):] if len(want) > len(got) else got[len(want):]
        which = "missing" if len(want) > len(got) else "extra"
        return (f"{len(want)} tokens expected, {len(got)} printed; {which}: "
                + " ".join(t for _, t in extra[:16]))
    return None


# -- running one program inside a child ----------------------------------------------------------

class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout(f"program ran longer than {TIMEOUT} s")


def _engine_as_torch() -> None:
    """Make ``import torch`` (and its submodules) give the engine, for the rest of the child."""
    import engine
    import engine.autograd
    import engine.nn
    import engine.nn.functional
    import engine.nn.init
    import engine.optim
    import engine.optim.lr_scheduler
    import engine.utils.data  # noqa: F401

    for name, module in list(sys.modules.items()):
        if name == "engine" or name.startswith("engine."):
            sys.modules["torch" + name[len("engine"):]] = module


def _reset(mode: str) -> None:
    if mode == "torch":
        import torch as lib
        lib.set_default_dtype(lib.float32)
    else:
        import engine as lib
    lib.set_grad_enabled(True)
    lib.set_printoptions(profile="default")
    lib.manual_seed(0)


def _exec_file(path: Path, source: str) -> None:
    namespace = {"__name__": "__main__", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)


def _interpret(path: Path, source: str) -> tuple[str, str | None]:
    from engine.script import Interpreter, ScriptError

    interp = Interpreter(source, filename=str(path))
    error = None
    try:
        interp.run()
    except ScriptError as e:
        cause = e.__cause__
        error = f"ScriptError({e.kind}) line {e.line}: {e.message}"
        if cause is not None:
            error += f"\n  caused by {type(cause).__name__}: {cause}"
    return "".join(interp.output), error


def run_here(path: Path, mode: str) -> dict:
    """Run one program in this process (the child); never raises."""
    source = path.read_text()
    out = io.StringIO()
    error = None
    start = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(TIMEOUT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _reset(mode)
            if mode == "interpreter":
                text, error = _interpret(path, source)
                out.write(text)
            else:
                with contextlib.redirect_stdout(out):
                    _exec_file(path, source)
    except BaseException as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"line {f.lineno}" for f in reversed(tb) if f.filename == str(path)), "")
        error = f"{type(e).__name__}: {e} ({where})" if where else f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return {"program": path.stem, "mode": mode, "output": out.getvalue(), "error": error,
            "seconds": round(time.perf_counter() - start, 3)}


def _child_main(mode: str, names: list[str]) -> None:
    if mode == "engine":
        _engine_as_torch()
    stdout = sys.stdout
    for name in names:
        result = run_here(_path_of(name), mode)
        stdout.write(json.dumps(result) + "\n")
        stdout.flush()


def _path_of(name: str) -> Path:
    p = Path(name)
    return p if p.suffix == ".py" and p.exists() else PROGRAMS_DIR / f"{Path(name).stem}.py"


# -- the parent's side ---------------------------------------------------------------------------

def _command(mode: str, names: list[str]) -> list[str]:
    return [sys.executable, "-m", "tests.corpus.run_corpus", "child", mode, *names]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def start(mode: str, names: list[str]) -> subprocess.Popen:
    return subprocess.Popen(_command(mode, names), cwd=ROOT, env=_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def collect(proc: subprocess.Popen, mode: str, names: list[str]) -> dict[str, dict]:
    """Wait for a child started by ``start``; programs it did not report run one per child."""
    try:
        out, err = proc.communicate(timeout=TIMEOUT * len(names) + 60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            results[r["program"]] = r
    missing = [n for n in names if Path(n).stem not in results]
    if missing and len(names) > 1:
        for name in missing:
            results.update(run_batch(mode, [name]))
    elif missing:
        name = Path(missing[0]).stem
        results[name] = {"program": name, "mode": mode, "output": "", "seconds": None,
                         "error": f"child process ended (code {proc.returncode}): "
                                  f"{err.strip()[-2000:]}"}
    return results


def run_batch(mode: str, names: list[str]) -> dict[str, dict]:
    return collect(start(mode, names), mode, names)


def run_one(program, mode: str) -> dict:
    """Run one program (a path or a name like ``001_tensor_basics``) under one mode."""
    return run_batch(mode, [str(program)])[Path(str(program)).stem]


def run_torch(program) -> dict:
    return run_one(program, "torch")


def run_engine(program) -> dict:
    return run_one(program, "engine")


def run_interpreter(program) -> dict:
    return run_one(program, "interpreter")


def run_all(names: list[str], modes=MODES) -> dict[str, dict[str, dict]]:
    """{mode: {program: result}}, the modes' children running at the same time."""
    procs = {mode: start(mode, names) for mode in modes}
    return {mode: collect(proc, mode, names) for mode, proc in procs.items()}


def verdict(expected: dict, actual: dict) -> str | None:
    """None when ``actual`` printed what the torch run printed and neither failed."""
    if expected["error"]:
        return f"torch failed: {expected['error']}"
    if actual["error"]:
        return f"{actual['mode']} failed: {actual['error']}"
    return compare(expected["output"], actual["output"])


def _report() -> None:
    names = [p.stem for p in programs()]
    start_time = time.perf_counter()
    results = run_all(names)
    wall = time.perf_counter() - start_time
    counts = {m: 0 for m in MODES}
    for name in names:
        t = results["torch"][name]
        row = [name, "ok" if not t["error"] else "FAIL"]
        counts["torch"] += not t["error"]
        for mode in ("engine", "interpreter"):
            v = verdict(t, results[mode][name])
            counts[mode] += v is None
            row.append("ok" if v is None else "differs: " + v.splitlines()[0][:150])
        print(" | ".join(row))
    secs = {m: sum(r["seconds"] or 0 for r in results[m].values()) for m in MODES}
    print(f"\n{len(names)} programs; torch clean {counts['torch']}, engine matches "
          f"{counts['engine']}, interpreter matches {counts['interpreter']}")
    print("seconds per mode (sum of runs):", {m: round(s, 1) for m, s in secs.items()},
          f"wall {wall:.1f}")


def _diff(name: str) -> None:
    results = run_all([name])
    for mode in MODES:
        r = results[mode][Path(name).stem]
        print(f"===== {mode} ({r['seconds']} s) error={r['error']}")
        print(r["output"])
    for mode in ("engine", "interpreter"):
        stem = Path(name).stem
        print(f"----- {mode}: {verdict(results['torch'][stem], results[mode][stem])}")


if __name__ == "__main__":
    if sys.argv[1] == "child":
        _child_main(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "report":
        _report()
    elif sys.argv[1] == "diff":
        for n in sys.argv[2:]:
            _diff(n)
