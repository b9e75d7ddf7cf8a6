"""``import random``: the run's own ``random.Random``, never the process's.

Each run gets a fresh ``ScriptRandom`` seeded with the session's seed (``engine.initial_seed()``,
which the session sets with ``engine.manual_seed`` before every run), so re-running a script
replays the same numbers; ``random.seed(s)`` reseeds it and gives exactly Python's
``random.Random(s)`` sequence. ``random.seed()`` without an argument goes back to the session's
seed (Python would read the clock or ``os.urandom``). The functions whose output size is an
argument (``sample``, ``choices``, ``getrandbits``, ``randbytes``) check it first.
"""

from __future__ import annotations

import _random
import random

from ..limits import Limits
from ._support import check_count

MISSING_NOTE = ("a script's random is its own seeded generator (SystemRandom and the process's "
                "generator are not available)")

_FUNCTIONS = (
    "seed", "random", "uniform", "triangular", "randint", "choice", "randrange", "sample",
    "shuffle", "choices", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
    "gammavariate", "gauss", "betavariate", "paretovariate", "weibullvariate", "getstate",
    "setstate", "getrandbits", "randbytes",
)


class ScriptRandom(random.Random):
    """``random.Random`` with the limits of a run; ``seed(None)`` is the session's seed."""

    def __init__(self, x=None, limits=None, default_seed=0) -> None:
        self._limits = limits if limits is not None else Limits()
        self._default_seed = default_seed
        super().__init__(x)

    def seed(self, a=None, version=2):
        if a is None:
            a = self._default_seed
        super().seed(a, version)

    def getrandbits(self, k, /):
        check_count(k, self._limits.max_int_bits, "getrandbits(k): k")
        return _random.Random.getrandbits(self, k)

    def randbytes(self, n):
        check_count(n, self._limits.max_string, "randbytes(n): n")
        return _random.Random.getrandbits(self, n * 8).to_bytes(n, "little")

    def sample(self, population, k, *, counts=None):
        check_count(k, self._limits.max_list, "sample(population, k): k")
        return super().sample(population, k, counts=counts)

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        check_count(k, self._limits.max_list, "choices(k=...): k")
        return super().choices(population, weights, cum_weights=cum_weights, k=k)

    def __reduce__(self):
        return (ScriptRandom, (None, self._limits, self._default_seed), self.getstate())


def build(interp) -> dict:
    seed = interp._run_seed  # the session's seed when the run started (not a later manual_seed)
    limits = interp.limits
    inst = ScriptRandom(seed, limits, seed)
    names = {name: getattr(inst, name) for name in _FUNCTIONS}

    def Random(x=None):
        """A new generator, as ``random.Random(x)`` (seeded like ``random.seed(x)``)."""
        return ScriptRandom(x, limits, seed)

    names["Random"] = Random
    return names
