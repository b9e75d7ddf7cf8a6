"""The small-MLP training step, split up, for several engine versions and PyTorch in ONE process.

Results (2026-12-01, the per-op/per-node pass after issue 14's: a tensor, its version counter, a
recorded node and a leaf's accumulator each made as one C copy of a prototype
(engine/_native/objects.c), a bias's gradient summed by one C call in numpy's order
(sums.c ``column_sum``), a rule's arguments built once per node; ``base`` = the tree before
that pass): 300 rounds, load average 1.6 falling to 1.3:
  (a) MLP step               base 0.90x [0.86x]   work 0.82x [0.80x]   (291 -> 267 us)
  (a) nn.Module + SGD step   base 0.84x [0.80x]   work 0.80x [0.77x]   (339 -> 324 us)
  (fwd) MLP forward          base 1.14x [1.16x]   work 1.02x [1.04x]   (82 -> 73 us, torch 72)
  (bwd) MLP backward         base 0.94x [0.88x]   work 0.86x [0.82x]   (123 -> 114 us)
  (chain) 200 ops            base 0.91x [0.91x]   work 0.83x [0.86x]
Instructions per call (callgrind, deterministic, the best guide on a shared machine): bare step
1,277,500 -> 1,142,400 (-10.6%), nn.Module step 1,442,900 -> 1,328,700 (-7.9%), forward 462,000
-> 390,000, backward 606,000 -> 544,000 (numpy's own floor for the whole step: 382,000).
Steady loops (four runs of 200-300 or 100 calls a batch, 25-80 interleaved rounds, one thread,
load 1.2-2.0) put the bare step at 0.95-1.05x torch by minimums (base 1.08-1.14x; one more run
read 1.12x against base 1.09x: a lucky torch minimum, its median 0.86x), 0.85-0.99x by medians of
the per-round ratios (base 0.92-1.09x); the nn.Module step 0.99-1.04x (base 1.04-1.08x).

Earlier results (issue 14's pass):

(2026-12-01, issue 14's per-op pass: ``dispatch.apply``/``_record`` with one plan per row
and three inputs unrolled, the full sum and mean in one call of ``engine/_native/sums.c``; shared
2-core VM, PyTorch 2.13 CPU on one thread; ratio of the minimums to torch [median of the per-round
ratios]). ``base`` = the working tree with this pass's files reverted (the op table's newer
float64-rounded tanh included on both sides), ``work`` = the tree:
  300 rounds, load average 3.2 rising to 5.6:
  (a) MLP step               base 0.97x [0.93x]   work 0.88x [0.86x]
  (a) nn.Module + SGD step   base 0.91x [0.86x]   work 0.84x [0.79x]
  (fwd) MLP forward          base 1.39x [1.42x]   work 1.13x [1.14x]
  (bwd) MLP backward         base 0.99x [0.94x]   work 0.96x [0.89x]
  (chain) 200 ops            base 1.03x [1.04x]   work 0.98x [0.93x]
  300 rounds, load average 2.4 (before the nn case was added): step base 1.09x [1.02x], work
  0.96x [0.90x]; forward 1.83x [1.70x] -> 1.50x [1.38x]; backward 1.01x [0.99x] -> 0.94x [0.92x].
In microseconds (the 2.4 run): step 270.9 -> 238.6 (torch 247.8), forward 81.7 -> 67.1 (torch
44.7). The forward's mean went from ~7 to ~5 us (torch 5), its sum in C and the rest in Python
floats instead of numpy scalars. A loaded host inflates torch's times more than the engine's, so
ratios read lower the busier it is: compare only columns of one run.

Caution (lead, 2026-12-01, load 0.9): this file's short batches (5 calls, then the other
library) read in the engine's favour: each batch starts cold after the other library ran, and
the cold start costs torch more (torch's step here: 348 us; 175 us in a steady loop). In steady
loops of 2,000 calls at one thread the bare step is 1.10-1.14x torch (``bench_engine.py``'s (a):
1.10-1.11x; forward 50 vs 30 us, backward 117 vs 97 us, the updates 20 vs 28 us), the
``nn.Module`` + SGD step 0.96-1.00x. Read ``bench_engine.py`` for the goal; this one for where a
change moves the time.

Run: ``python tests/benchmarks/bench_step_profile.py [label=path ...] [--rounds=N] [--profile]``.
Each ``label=path`` names a directory holding an ``engine/`` package (an older checkout, e.g. made
with ``git worktree add /tmp/before <commit>``); it is imported under another package name, so all
versions run side by side. The working tree's engine is always ``work``; PyTorch is ``torch`` when
installed. Cases: (a) one SGD step of bench_engine's 2-16-16-1 tanh MLP, on bare tensors and as
the issue writes it (``nn.Sequential``, ``F.mse_loss``, ``optim.SGD``), (fwd) its forward only,
(bwd) its backward only (a fresh graph per call, built outside the timed part), (chain) 200
elementwise ops (``(y * 1.0001 + 0.0001).tanh()`` / 3 ... on a 64-vector) forward + backward.
The machine is shared and noisy: every case alternates between the libraries round after round
(short batches of CPU time, a collection before each), keeping each one's minimum and the median of
its per-round ratio to torch. ``--profile`` prints cProfile's top functions for ``work``'s step.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import engine


def load_engine(label: str, path: str):
    """The ``engine`` package under ``path`` imported as ``engine_<label>`` (its modules import
    one another relatively, so it stands apart from the working tree's)."""
    name = f"engine_{label}"
    init = Path(path) / "engine" / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init,
                                                  submodule_search_locations=[str(init.parent)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


# -- cases -----------------------------------------------------------------------------------------

def mlp(lib, seed=0):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((64, 2)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((64, 1)).astype(np.float32))
    params = [
        lib.tensor(rng.standard_normal(s).astype(np.float32) * 0.5, requires_grad=True)
        for s in [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    ]
    w1, b1, w2, b2, w3, b3 = params

    def forward():
        h = (x @ w1 + b1).tanh()
        h = (h @ w2 + b2).tanh()
        out = h @ w3 + b3
        return ((out - y) ** 2).mean()

    def step():
        for p in params:
            p.grad = None
        loss = forward()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad

    def make_backward():
        for p in params:
            p.grad = None
        return forward().backward

    return step, forward, make_backward


def nn_step(lib, seed=0):
    """The same step as the issue writes it (bench_engine's ``nn_mlp_step_factory``)."""
    from tests.benchmarks.bench_engine import nn_mlp_step_factory

    return nn_mlp_step_factory(lib, np.random.default_rng(seed))


def chain(lib, n_ops=200, size=64):
    x = lib.tensor(np.linspace(-1, 1, size, dtype=np.float32), requires_grad=True)

    def fb():
        x.grad = None
        y = x
        for _ in range(n_ops // 3):
            y = (y * 1.0001 + 0.0001).tanh()
        y = y * 1.0001 + 0.0001  # 200 ops in all
        y.sum().backward()

    return fb


# The thread's CPU time, not the wall clock: time spent descheduled (the machine is shared) is
# left out. PyTorch runs on this thread too (``set_num_threads(1)``).
clock = time.thread_time


def timed(fn, number):
    t0 = clock()
    for _ in range(number):
        fn()
    return (clock() - t0) / number


def timed_backward(make, number):
    total = 0.0
    for _ in range(number):
        run = make()
        t0 = clock()
        run()
        total += clock() - t0
    return total / number


def main(argv) -> None:
    profile = "--profile" in argv
    libs = {}
    for arg in argv:
        if "=" in arg and not arg.startswith("--"):
            label, path = arg.split("=", 1)
            libs[label] = load_engine(label, path)
    libs["work"] = engine
    try:
        import torch

        torch.set_num_threads(1)
        libs["torch"] = torch
    except ImportError:
        pass
    gc.collect()
    gc.freeze()  # as the app does after its imports (bench_engine's case (e))

    cases = {}
    for label, lib in libs.items():
        step, fwd, make_bwd = mlp(lib)
        module_step = nn_step(lib)
        chained = chain(lib)
        cases[label] = {
            "(a) MLP step": lambda s=step: timed(s, 5),
            "(a) nn.Module + SGD step": lambda s=module_step: timed(s, 5),
            "(fwd) MLP forward": lambda f=fwd: timed(f, 10),
            "(bwd) MLP backward": lambda m=make_bwd: timed_backward(m, 10),
            "(chain) 200 ops fwd+bwd": lambda c=chained: timed(c, 1),
        }
    names = list(next(iter(cases.values())))
    best = {label: {n: float("inf") for n in names} for label in libs}
    # per round, each library's time over the reference's in that same round: the host's slow
    # and fast periods hit both sides of a pair alike, so the median of these ratios is steadier
    # than a ratio of minimums
    ref = "torch" if "torch" in libs else "work"
    paired = {label: {n: [] for n in names} for label in libs}
    rounds = int(next((a.split('=')[1] for a in argv if a.startswith('--rounds=')), 400))
    for r in range(rounds):
        order = list(libs) if r % 2 == 0 else list(reversed(libs))  # alternate A/B
        for n in names:
            now = {}
            for label in order:
                gc.collect()  # each batch starts from the same collector state, not the last one's
                now[label] = t = cases[label][n]()
                best[label][n] = min(best[label][n], t)
            for label in libs:
                paired[label][n].append(now[label] / now[ref])

    print(f"{rounds} interleaved rounds: best microseconds of CPU time per call (ratio of the "
          f"minimums to {ref}) [median of the per-round ratios to {ref}]")
    print(f"{'case':26}" + "".join(f"{label:>26}" for label in libs))
    for n in names:
        line = f"{n:26}"
        for label in libs:
            us = best[label][n] * 1e6
            med = sorted(paired[label][n])[len(paired[label][n]) // 2]
            cell = f"{us:8.1f} ({best[label][n] / best[ref][n]:4.2f}x) [{med:4.2f}x]"
            line += f"{cell:>26}"
        print(line)

    if profile:
        import cProfile
        import pstats

        step, _, _ = mlp(engine)
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(2000):
            step()
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main(sys.argv[1:])
