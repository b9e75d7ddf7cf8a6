"""Random-number speed, the engine (PyTorch's streams reproduced in numpy, engine/random.py) side
by side with PyTorch CPU, as ratios.

Run: ``python tests/benchmarks/bench_random.py`` (PyTorch optional; without it only the engine
column prints). Each case is the best of several repeats, so the shared machine's noise mostly
cancels out; the numbers are printed, never asserted. The headline case is a 10**6-element
``randn`` (float32: PyTorch's 16-wide Box-Muller with avx_mathfun's log/sin/cos, which the engine
emulates operation by operation, FMAs included).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
import engine.nn

try:
    import torch
except ImportError:  # the engine column still prints
    torch = None


def best_time(fn, number: int = 3, repeat: int = 5) -> float:
    """Seconds per call: the best of ``repeat`` runs of ``number`` calls."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
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
    ("bernoulli_(0.5) 10**6", lambda t: t.empty(N).bernoulli_(0.5)),
    ("dropout(10**6, p=0.1)", lambda t: t.nn.functional.dropout(t.ones(N), 0.1)),
    ("Linear(1024, 1024)", lambda t: t.nn.Linear(1024, 1024)),
]


def main() -> None:
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
