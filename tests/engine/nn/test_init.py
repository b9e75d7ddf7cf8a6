"""``nn.init`` functions the random-stream tests (tests/engine/test_random.py) do not cover:
dirac_, sparse_ (its per-column randperm draws), eye_/constant_/zeros_/ones_ (values and the
version bump), the deprecated spellings and the errors, each against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine
from tests.engine.nn.test_nn import same_error

torch = pytest.importorskip("torch")


def both(fill, shape, seed=0):
    """(torch's, engine's) tensor after ``fill(lib, tensor)`` from the same seed, and the next
    draw of each stream."""
    out = []
    for lib in (torch, engine):
        lib.manual_seed(seed)
        t = lib.empty(*shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fill(lib, t)
        assert result is t
        out.append((t.numpy().copy(), t._version if lib is torch else t._version.value,
                    lib.rand(3).numpy()))
    return out


@pytest.mark.parametrize("fill,shape", [
    (lambda lib, t: lib.nn.init.dirac_(t), (4, 3, 3)),
    (lambda lib, t: lib.nn.init.dirac_(t), (3, 5, 3, 4)),
    (lambda lib, t: lib.nn.init.dirac_(t, groups=2), (6, 2, 3, 3)),
    (lambda lib, t: lib.nn.init.dirac_(t), (2, 2, 3, 3, 3)),
    (lambda lib, t: lib.nn.init.sparse_(t, 0.5), (6, 4)),
    (lambda lib, t: lib.nn.init.sparse_(t, 0.1, std=2.0), (20, 3)),
    (lambda lib, t: lib.nn.init.eye_(t), (3, 5)),
    (lambda lib, t: lib.nn.init.constant_(t, 0.25), (2, 3)),
    (lambda lib, t: lib.nn.init.zeros_(t), (4,)),
    (lambda lib, t: lib.nn.init.ones_(t), (2, 2)),
    (lambda lib, t: lib.nn.init.xavier_uniform(t), (3, 4)),
    (lambda lib, t: lib.nn.init.kaiming_normal(t), (3, 4)),
    (lambda lib, t: lib.nn.init.uniform(t, -1, 1), (5,)),
    (lambda lib, t: lib.nn.init.normal(t), (20,)),
    (lambda lib, t: lib.nn.init.constant(t, 3.0), (2,)),
    (lambda lib, t: lib.nn.init.dirac(t), (2, 2, 3)),
    (lambda lib, t: lib.nn.init.sparse(t, 0.3), (5, 2)),
], ids=range(17))
def test_fill_matches_torch_bit_for_bit(fill, shape):
    (tv, tver, tnext), (ev, ever, enext) = both(fill, shape)
    assert tv.dtype == ev.dtype and np.array_equal(tv, ev)
    assert np.array_equal(tnext, enext)
    # torch counts each of its in-place writes (dirac_ makes several), the engine one per fill
    assert ever >= 1 and tver >= 1


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac",
                                  "xavier_uniform", "xavier_normal", "kaiming_uniform",
                                  "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_spellings_warn(name):
    args = {"constant": (1.0,), "sparse": (0.5,)}.get(name, ())
    shape = (2, 2, 3) if name == "dirac" else (3, 3)
    with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of "
                                           f"`nn.init.{name}_`"):
        getattr(engine.nn.init, name)(engine.empty(*shape), *args)
    assert getattr(engine.nn.init, name).__name__ == getattr(torch.nn.init, name).__name__



@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 3), groups=2),
    lambda lib: lib.nn.init.sparse_(lib.empty(3, 3, 3), 0.5),
    lambda lib: lib.nn.init.eye_(lib.empty(3)),
    lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
], ids=range(5))
def test_errors_match_torch(fn):
    same_error(fn)
