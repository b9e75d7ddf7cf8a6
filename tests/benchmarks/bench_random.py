"""Random-number speed, the engine (PyTorch's streams reproduced in numpy, engine/random.py) side
by side with PyTorch CPU, as ratios.

Run: ``python tests/benchmarks/bench_random.py`` (PyTorch optional; without it only the engine
column prints; ``GRADSTEP_NATIVE=0`` times the numpy fallback instead of the compiled kernel).
Each case is the best of several repeats of the process's CPU time, so the shared machine's noise
mostly cancels out; the numbers are printed, never asserted. The headline case is a
10**6-element ``randn`` (float32: PyTorch's 16-wide Box-Muller with avx_mathfun's log/sin/cos).

Measured on the 2-core CI-like machine (AVX-512, torch 2.13, one thread), ms engine / torch:
with the compiled kernel (engine/_native/fill.c: torch's own AVX2 operations, the uniforms drawn
in C from the bit generator) randn(10**6) 6.4 / 3.6 (1.8x; the fill itself is ~1 ms, the rest is
drawing 10**6 mt19937 outputs and creation's copy into the tensor), float64 26.7 / 20.4 (1.3x),
normal_(2, 3) 3.7 / 3.2 (1.2x), Normal.sample 5.1 / 4.5 (1.1x), rand 3.6 / 3.4 (1.1x). The numpy
fallback (no compiler at install time, emulating every FMA) is ~10x torch's on randn(10**6)
(32 / 3.3) and ~3.5x on float64.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
import engine.distributions
import engine.nn

try:
    import torch
    import torch.distributions
except ImportError:  # the engine column still prints
    torch = None


def best_time(fn, number: int = 3, repeat: int = 5) -> float:
    """CPU seconds per call: the best of ``repeat`` runs of ``number`` calls. CPU time of this
    process rather than the wall clock, so that other work on a shared machine barely moves the
    numbers (torch runs single-threaded here, see main)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - t0) / number)
    return best


N = 10**6
CASES = [
    ("randn(10**6)", lambda t: t.randn(N)),
    ("randn(10**6, float64)", lambda t: t.randn(N, dtype=t.float64)),
    ("rand(10**6)", lambda t: t.rand(N)),
    ("rand(10**6, float64)", lambda t: t.rand(N, dtype=t.float64)),
    ("randint(0, 10, (10**6,))", lambda t: t.randint(0, 10, (N,))),
    ("randperm(10**5)", lambda t: t.randperm(10**5)),
    ("randn(15) x 1000", lambda t: [t.randn(15) for _ in range(1000)]),
    ("normal_(2, 3) 10**6", lambda t: t.empty(N).normal_(2.0, 3.0)),
    ("uniform_(-1, 1) 10**6", lambda t: t.empty(N).uniform_(-1.0, 1.0)),
    ("bernoulli_(0.5) 10**6", lambda t: t.empty(N).bernoulli_(0.5)),
    ("multinomial(10**4 of 10)", lambda t: t.multinomial(t.ones(10), 10**4, True)),
    ("Normal.sample((10**6,))", lambda t: t.distributions.Normal(0.0, 1.0).sample((N,))),
    ("dropout(10**6, p=0.1)", lambda t: t.nn.functional.dropout(t.ones(N), 0.1)),
    ("Linear(1024, 1024)", lambda t: t.nn.Linear(1024, 1024)),
]


def main() -> None:
    if torch is not None:
        torch.set_num_threads(1)  # CPU time compares like with like (the engine is
        # single-threaded too)
    print(f"{'case':28s} {'engine ms':>10s} {'torch ms':>10s} {'ratio':>7s}")
    for name, fn in CASES:
        engine.manual_seed(0)
        mine = best_time(lambda fn=fn: fn(engine))
        if torch is not None:
            torch.manual_seed(0)
            ref = best_time(lambda fn=fn: fn(torch))
            print(f"{name:28s} {mine * 1e3:10.2f} {ref * 1e3:10.2f} {mine / ref:7.1f}")
        else:
            print(f"{name:28s} {mine * 1e3:10.2f}")


if __name__ == "__main__":
    main()
