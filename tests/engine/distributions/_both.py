"""Run one snippet of ``torch.distributions`` code in real torch and in the engine."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.distributions

torch = pytest.importorskip("torch")
import torch.distributions


def values(x):
    """Plain numpy data of a (nested) result, tensors detached."""
    if isinstance(x, (list, tuple)):
        return [values(v) for v in x]
    if isinstance(x, (torch.Tensor, engine.Tensor)):
        return np.array(x.detach().numpy(), copy=True)
    return x


def draw_both(fn, seed):
    """fn(lib, D) after ``manual_seed(seed)`` in each library: (engine result, torch result,
    whether the generator states agree afterwards)."""
    engine.manual_seed(seed)
    mine = values(fn(engine, engine.distributions))
    my_state = engine.get_rng_state()._data.copy()
    torch.manual_seed(seed)
    ref = values(fn(torch, torch.distributions))
    return mine, ref, np.array_equal(my_state, torch.get_rng_state().numpy())
