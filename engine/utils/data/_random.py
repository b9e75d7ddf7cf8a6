"""The random draws of the samplers, through the engine's public API in PyTorch's spelling.

PyTorch's samplers draw ``torch.empty((), dtype=torch.int64).random_()`` (a seed),
``torch.Generator().manual_seed(seed)`` and ``torch.randperm(n, generator=g)``; these helpers do the
same calls on the engine, so a shuffle equals PyTorch's whenever the engine's stream equals
PyTorch's. Until the engine has that API (``Tensor.random_``, ``randperm(generator=)``), they fall
back on the engine's global stream: the loaders still shuffle, reproducibly per seed, just not in
PyTorch's order.
"""

from __future__ import annotations

import inspect

import engine

_accepts: dict = {}


def _accepts_generator(fn) -> bool:
    known = _accepts.get(fn)
    if known is None:
        try:
            known = "generator" in inspect.signature(fn).parameters
        except (TypeError, ValueError):  # a builtin without a signature: assume PyTorch's
            known = True
        _accepts[fn] = known
    return known


def exact_stream() -> bool:
    """Whether the engine has PyTorch's generator API (then every draw here is PyTorch's)."""
    return hasattr(engine.Tensor, "random_") and _accepts_generator(engine.randperm)


def random_int64(generator=None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``."""
    if hasattr(engine.Tensor, "random_"):
        t = engine.empty((), dtype=engine.int64)
        t = t.random_() if generator is None else t.random_(generator=generator)
        return int(t.item())
    return int(engine.randint(0, 2**62, (1,)).item())


def seeded_generator(seed: int):
    """``g = torch.Generator(); g.manual_seed(seed)``; None (the global stream) without the API."""
    if not exact_stream():
        return None
    generator = engine.Generator()
    generator.manual_seed(seed)
    return generator


def randperm(n: int, generator=None) -> list:
    """``torch.randperm(n, generator=generator).tolist()``."""
    if generator is not None and exact_stream():
        return engine.randperm(n, generator=generator).tolist()
    return engine.randperm(n).tolist()


def randint(high: int, size: int, generator=None) -> list:
    """As ``torch.randint(high=high, size=(size,), dtype=torch.int64, generator=generator)``,
    then ``.tolist()``."""
    if generator is not None and _accepts_generator(engine.randint):
        return engine.randint(0, high, (size,), dtype=engine.int64, generator=generator).tolist()
    return engine.randint(0, high, (size,), dtype=engine.int64).tolist()


def multinomial(weights, num_samples: int, replacement: bool, generator=None) -> list:
    """``torch.multinomial(weights, num_samples, replacement, generator=generator).tolist()``.

    Without ``engine.multinomial`` the indices are drawn from ``engine.rand`` (inverse CDF with
    replacement, exponential keys without): the right distribution, not PyTorch's values."""
    fn = getattr(engine, "multinomial", None)
    if fn is not None:
        return fn(weights, num_samples, replacement, generator=generator).tolist()
    import numpy as np

    w = np.asarray(weights.detach().numpy(), dtype=np.float64)
    if w.ndim != 1 or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > int((w > 0).sum()):
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    kwargs = {} if generator is None or not _accepts_generator(engine.rand) else {
        "generator": generator}
    if replacement:
        u = engine.rand(num_samples, dtype=engine.float64, **kwargs).numpy()
        cdf = np.cumsum(w / w.sum())
        cdf[-1] = 1.0
        return np.minimum(np.searchsorted(cdf, u, side="right"), len(w) - 1).tolist()
    u = engine.rand(len(w), dtype=engine.float64, **kwargs).numpy()
    keys = np.where(w > 0, -np.log1p(-u) / np.where(w > 0, w, 1.0), np.inf)
    return np.argsort(keys, kind="stable")[:num_samples].tolist()
