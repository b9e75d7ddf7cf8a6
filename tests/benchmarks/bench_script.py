"""The script interpreter's overhead, as ratios (issue 3: within 1.5x).

Run: ``python tests/benchmarks/bench_script.py [repeats]``. The same 100-iteration training loop
of a small MLP (2-16-16-1 tanh, batch 64, MSE, SGD; nn.Module and optim) is timed three ways:
written directly in Python against the engine, run as a script through ``engine.script.run``, and
run through the stepping generator ``Interpreter.steps()`` consumed by a driver that never pauses.
A second case does the same with raw tensors and a manual SGD update under ``no_grad`` (more
statements per iteration, so more interpreter work per engine op). Each timing is the best of
several repeats (9 unless given) of the CPU time the process used (not wall time: the machine is
shared), so the shared machine's noise mostly cancels out; the numbers are ratios, never
assertions.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from engine.script import Interpreter

MODULE_LOOP = """
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                      nn.Linear(16, 1))
opt = optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()
x = torch.randn(64, 2)
y = (x[:, :1] * x[:, 1:]).tanh()
for it in range(100):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
"""

RAW_LOOP = """
import torch

torch.manual_seed(0)
w1 = torch.randn(2, 16, requires_grad=True)
b1 = torch.zeros(16, requires_grad=True)
w2 = torch.randn(16, 16, requires_grad=True)
b2 = torch.zeros(16, requires_grad=True)
w3 = torch.randn(16, 1, requires_grad=True)
b3 = torch.zeros(1, requires_grad=True)
params = [w1, b1, w2, b2, w3, b3]
x = torch.randn(64, 2)
y = (x[:, :1] * x[:, 1:]).tanh()
lr = 0.05
for it in range(100):
    h1 = (x @ w1 + b1).tanh()
    h2 = (h1 @ w2 + b2).tanh()
    out = h2 @ w3 + b3
    loss = ((out - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
"""


def direct(source: str):
    """The loop as plain Python against the engine (the baseline)."""
    namespace = {"__name__": "__main__"}
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.nn", "torch.optim")}
    import engine.nn
    import engine.optim

    sys.modules.update({"torch": engine, "torch.nn": engine.nn, "torch.optim": engine.optim})
    try:
        exec(compile(source, "<direct>", "exec"), namespace)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def scripted(source: str):
    Interpreter(source).run()


def stepped(source: str):
    for _pause in Interpreter(source).steps():
        pass


def best_of(fns, source: str, repeats: int = 9) -> list[float]:
    """The best time of each way, the ways interleaved so that load changes hit them alike."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, bucket in zip(fns, times):
            engine.manual_seed(0)
            start = time.process_time()
            fn(source)
            bucket.append(time.process_time() - start)
    return [min(bucket) for bucket in times]


def main(repeats: int = 9) -> None:
    for name, source in (("nn.Module + optim.SGD", MODULE_LOOP), ("raw tensors", RAW_LOOP)):
        base, run, steps = best_of((direct, scripted, stepped), source, repeats)
        print(f"{name:24s} direct {base * 1e3:7.1f} ms | run {run * 1e3:7.1f} ms "
              f"({run / base:4.2f}x) | steps() {steps * 1e3:7.1f} ms ({steps / base:4.2f}x)")


if __name__ == "__main__":
    # an optional count of repeats: more of them steady the numbers on a busy machine
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
