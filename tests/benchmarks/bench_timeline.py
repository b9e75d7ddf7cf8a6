"""Timeline memory: 1,000 iterations of an XOR MLP (Adam) stepped statement by statement.

Every ``step_over`` adds a timeline point with its snapshot (values, grads, optimizer state). The
goal is under 64 MB for the whole timeline. Run ``python tests/benchmarks/bench_timeline.py`` to
print the numbers, or ``pytest tests/benchmarks/bench_timeline.py`` to check the goal.
"""

from __future__ import annotations

import sys
import time

import numpy as np

GOAL_BYTES = 64 * 2**20

XOR_MLP = """\
import torch
import torch.nn as nn
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.BCELoss()
for epoch in range({iterations}):
    opt.zero_grad()
    out = model(X)
    loss = loss_fn(out, Y)
    loss.backward()
    opt.step()
"""


def deep_size(root) -> int:
    """Bytes of every object reachable from ``root`` through containers, counted once each."""
    from engine.session.state import Snapshot, TensorRecord
    from engine.session.timeline import TimelinePoint

    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += sys.getsizeof(obj)  # header plus the data it owns
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, (TensorRecord, TimelinePoint, Snapshot)):
            stack.extend(vars(obj).values())
    return total


def measure(iterations: int = 1000) -> dict:
    from engine.session import Session

    session = Session(XOR_MLP.format(iterations=iterations))
    start = time.perf_counter()
    steps = 0
    while True:
        session.step_over()
        steps += 1
        if session.status != "paused":
            break
    elapsed = time.perf_counter() - start
    timeline = session.timeline
    return {
        "iterations": iterations,
        "points": len(timeline),
        "steps": steps,
        "seconds": elapsed,
        "timeline_bytes": deep_size(timeline._stored) + deep_size(timeline._points),
        "accounted_bytes": timeline.stored_bytes,
        "evicted_segments": timeline.evicted_segments,
        "final_loss": session.losses[-1][1] if session.losses else None,
        "status": session.status,
    }


def _print(result: dict) -> None:
    mb = 2**20
    print(f"timeline for {result['iterations']} XOR-MLP iterations stepped statement by "
          f"statement: {result['points']} points in {result['seconds']:.1f} s")
    print(f"  measured size of the stored snapshots and points: "
          f"{result['timeline_bytes'] / mb:.2f} MB (goal < {GOAL_BYTES / mb:.0f} MB)")
    print(f"  the timeline's own accounting of its snapshots: "
          f"{result['accounted_bytes'] / mb:.2f} MB, "
          f"evicted segments: {result['evicted_segments']}")
    print(f"  final loss {result['final_loss']}")


def test_timeline_memory_for_1000_xor_iterations_stepped_statement_by_statement():
    result = measure(1000)
    _print(result)
    assert result["status"] == "finished"
    assert result["points"] > 5 * 1000  # one point per statement of every iteration
    assert result["timeline_bytes"] < GOAL_BYTES
    assert result["evicted_segments"] == 0  # everything fits: no point needs re-execution
    assert result["final_loss"] < 0.1  # the run really trained


if __name__ == "__main__":
    _print(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 1000))
