"""Small engine scripts whose graphs the graph tests draw."""

from __future__ import annotations

import engine as T


def seed_demo():
    t1 = T.tensor([1.0, 2.0, 3.0], dtype=T.float32, requires_grad=True)
    t2 = t1 * t1 + 1
    t2.retain_grad()
    z = t2.sum()
    return {"T": T, "t1": t1, "t2": t2, "z": z}


def training_step(seed: int):
    T.manual_seed(seed)
    w = T.randn(3, requires_grad=True)
    b = T.zeros(1, requires_grad=True)
    x = T.randn(4, 3)
    target = T.randn(4)
    pred = x @ w + b
    loss = ((pred - target) ** 2).mean()
    ns = {"w": w, "b": b, "x": x, "target": target, "pred": pred, "loss": loss}
    return ns, list(loss.backward_steps())
