"""Engine speed, side by side with PyTorch CPU and a hand-written numpy floor, as ratios.

Run: ``python tests/benchmarks/bench_engine.py`` (PyTorch optional; without it only the engine and
numpy columns print). Each case is timed as the best of several repeats of many iterations, so the
shared machine's noise mostly cancels out; the numbers are ratios, never assertions.

Cases (issue 2): (a) a 2-16-16-1 tanh MLP, batch 64, MSE, SGD: one full step; (b) 784-256-10 ReLU,
batch 128, cross-entropy, one step; (c) a chain of 5,000 ``(y * 1.0001 + 0.0001).tanh()`` ops on a
1,024-vector, forward and backward, plus the backward cost per node on 3-element tensors; (d) the
event hub with no listener; (e) the garbage collector with the GUI's imports loaded.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine

try:
    import torch
except ImportError:  # the engine and numpy columns still print
    torch = None


def best_time(fn, number: int, repeat: int = 5) -> float:
    """Seconds per call: the best of ``repeat`` runs of ``number`` calls."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


# -- (a) small tanh MLP ----------------------------------------------------------------------------

def mlp_step_factory(lib, rng):
    """One SGD step of a 2-16-16-1 tanh MLP written against a torch-like library."""
    x = lib.tensor(rng.standard_normal((64, 2)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((64, 1)).astype(np.float32))
    params = [
        lib.tensor(rng.standard_normal(s).astype(np.float32) * 0.5, requires_grad=True)
        for s in [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    ]
    w1, b1, w2, b2, w3, b3 = params
    lr = 0.01

    def step():
        for p in params:
            p.grad = None
        h = (x @ w1 + b1).tanh()
        h = (h @ w2 + b2).tanh()
        out = h @ w3 + b3
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad

    return step


def mlp_step_numpy(rng):
    x = rng.standard_normal((64, 2)).astype(np.float32)
    y = rng.standard_normal((64, 1)).astype(np.float32)
    w1, b1, w2, b2, w3, b3 = [
        (rng.standard_normal(s) * 0.5).astype(np.float32)
        for s in [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
    ]
    lr = np.float32(0.01)

    def step():
        nonlocal w1, b1, w2, b2, w3, b3
        h1 = np.tanh(x @ w1 + b1)
        h2 = np.tanh(h1 @ w2 + b2)
        out = h2 @ w3 + b3
        d = out - y
        g_out = (2.0 / d.size) * d
        g_w3 = h2.T @ g_out
        g_b3 = g_out.sum(0)
        g_h2 = (g_out @ w3.T) * (1 - h2 * h2)
        g_w2 = h1.T @ g_h2
        g_b2 = g_h2.sum(0)
        g_h1 = (g_h2 @ w2.T) * (1 - h1 * h1)
        g_w1 = x.T @ g_h1
        g_b1 = g_h1.sum(0)
        w1 -= lr * g_w1
        b1 -= lr * g_b1
        w2 -= lr * g_w2
        b2 -= lr * g_b2
        w3 -= lr * g_w3
        b3 -= lr * g_b3

    return step


# -- (b) 784-256-10 ReLU, cross-entropy ------------------------------------------------------------

def mnist_step_factory(lib, rng):
    x = lib.tensor(rng.standard_normal((128, 784)).astype(np.float32))
    target = lib.tensor(rng.integers(0, 10, 128))
    w1 = lib.tensor((rng.standard_normal((784, 256)) * 0.05).astype(np.float32), requires_grad=True)
    b1 = lib.tensor(np.zeros(256, np.float32), requires_grad=True)
    w2 = lib.tensor((rng.standard_normal((256, 10)) * 0.05).astype(np.float32), requires_grad=True)
    b2 = lib.tensor(np.zeros(10, np.float32), requires_grad=True)
    params = [w1, b1, w2, b2]
    rows = lib.arange(128)
    try:
        cross_entropy = lib.nn.functional.cross_entropy
    except (AttributeError, ImportError):  # the engine's nn may be absent in a partial checkout
        cross_entropy = None

    def step():
        for p in params:
            p.grad = None
        logits = (x @ w1 + b1).relu() @ w2 + b2
        if cross_entropy is not None:
            loss = cross_entropy(logits, target)
        else:
            loss = -logits.log_softmax(1)[rows, target].mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad

    return step


# -- (c) a long chain ------------------------------------------------------------------------------

def chain_factory(lib, n_ops: int, size: int):
    x = lib.tensor(np.linspace(-1, 1, size, dtype=np.float32), requires_grad=True)

    def forward():
        y = x
        for _ in range(n_ops):
            y = (y * 1.0001 + 0.0001).tanh()
        return y.sum()

    def forward_backward():
        x.grad = None
        forward().backward()

    return forward, forward_backward


def backward_per_node(lib, n_ops: int = 3000) -> float:
    """Seconds per backward node on 3-element tensors (forward excluded)."""
    forward, _ = chain_factory(lib, n_ops, 3)
    nodes = 3 * n_ops + 1  # mul, add, tanh per op, plus the sum
    best = float("inf")
    for _ in range(5):
        loss = forward()
        t0 = time.perf_counter()
        loss.backward()
        best = min(best, time.perf_counter() - t0)
    return best / nodes


# -- (d) the event hub with nobody listening -------------------------------------------------------

def hub_overhead() -> tuple[float, int, float]:
    """The no-listener cost of the hub in case (a): (step time, event sites hit per step, share).

    With nobody listening each event site costs one ``if hub.active:`` read; the share is the
    number of sites one step passes (counted with a listener) times the measured cost of one read,
    over the step's time.
    """
    import timeit

    step = mlp_step_factory(engine, np.random.default_rng(1))
    base = best_time(step, 300)
    events = []
    unsubscribe = engine.events.hub.subscribe(events.append)
    step()
    unsubscribe()
    hub = engine.events.hub
    n = 1_000_000
    read = min(timeit.repeat("hub.active", globals={"hub": hub}, number=n, repeat=5)) / n
    return base, len(events), len(events) * read / base


# -- (e) garbage collector with the GUI's imports loaded -------------------------------------------

def gc_ratios() -> tuple[float, float]:
    """Default GC over GC disabled, with the GUI's imports loaded: as imported, then after the
    app's start-up step (``engine.gc_policy.settle_after_imports``)."""
    try:
        import pyqtgraph  # noqa: F401
        import PySide6.QtWidgets  # noqa: F401
    except ImportError:
        pass
    from engine.gc_policy import settle_after_imports

    _, fb = chain_factory(engine, 2000, 3)

    def ratio() -> float:
        gc.enable()
        with_gc = best_time(fb, 3)
        gc.disable()
        without = best_time(fb, 3)
        gc.enable()
        return with_gc / without

    before = ratio()
    settle_after_imports()
    return before, ratio()


def main() -> None:
    # (e) first: it measures the collector as imported, then settles the process as the app does
    # at start-up (gc.freeze). Everything after runs in that state, the one the app runs in;
    # without it, torch's own import (~170,000 tracked objects) would be walked by every full
    # collection the engine's graph building triggers, and (c) would measure that instead.
    before, after = gc_ratios()
    rng = np.random.default_rng(0)
    rows = []

    def case(name, engine_fn, torch_fn, numpy_fn, number):
        e = best_time(engine_fn, number)
        t = best_time(torch_fn, number) if torch_fn else None
        n = best_time(numpy_fn, number) if numpy_fn else None
        rows.append((name, e, t, n))

    case("(a) MLP 2-16-16-1 step", mlp_step_factory(engine, rng),
         mlp_step_factory(torch, rng) if torch else None, mlp_step_numpy(rng), 300)
    case("(b) MLP 784-256-10 step", mnist_step_factory(engine, rng),
         mnist_step_factory(torch, rng) if torch else None, None, 30)
    e_fwd, e_fb = chain_factory(engine, 5000, 1024)
    t_fwd, t_fb = chain_factory(torch, 5000, 1024) if torch else (None, None)
    case("(c) chain 5000 fwd", e_fwd, t_fwd, None, 2)
    case("(c) chain 5000 fwd+bwd", e_fb, t_fb, None, 2)

    print(f"{'case':28} {'engine':>10} {'torch':>10} {'numpy':>10} "
          f"{'eng/torch':>10} {'eng/numpy':>10}")
    for name, e, t, n in rows:
        ft = f"{t * 1e3:9.3f}m" if t else f"{'-':>10}"
        fn = f"{n * 1e3:9.3f}m" if n else f"{'-':>10}"
        rt = f"{e / t:10.2f}" if t else f"{'-':>10}"
        rn = f"{e / n:10.2f}" if n else f"{'-':>10}"
        print(f"{name:28} {e * 1e3:9.3f}m {ft} {fn} {rt} {rn}")

    e_node = backward_per_node(engine)
    line = f"backward per node, 3-element tensors: engine {e_node * 1e6:.2f} us"
    if torch:
        t_node = backward_per_node(torch)
        line += f", torch {t_node * 1e6:.2f} us (ratio {e_node / t_node:.2f})"
    print(line)

    base, sites, share = hub_overhead()
    print(f"event hub, no listener: {sites} event sites per step of (a) ({base * 1e3:.3f} ms); "
          f"their checks cost {share * 100:.2f}% of the step")
    print(f"garbage collector, GUI imports loaded, chain of 2,000 on 3 elements: default GC / GC "
          f"disabled = {before:.2f}x as imported, {after:.2f}x after the app's start-up freeze")


if __name__ == "__main__":
    main()
