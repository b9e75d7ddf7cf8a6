"""``np.random.default_rng(seed)`` in a script: numpy's own ``Generator`` (so the same numbers, bit
for bit) behind the methods tutorials use, each refusing a too large result before numpy runs.

The script holds a ``Generator`` of this module: its state is in underscore slots a script cannot
read (no ``bit_generator``, no ``spawn``, no ``out=`` into another array's memory), it cannot be
built but through ``default_rng``, and every result is screened as any call's.
"""

from __future__ import annotations

import operator

import numpy as np

from .guards import product

# numpy's methods by the position of their ``size`` argument; ``choice``, ``permutation`` and
# ``shuffle`` size their results from their first argument too.
_SIZE_AT = {"standard_normal": 0, "random": 0, "normal": 2, "uniform": 2, "integers": 2,
            "choice": 1}
_PARAMETERS = {"normal": ("loc", "scale"), "uniform": ("low", "high"),
               "integers": ("low", "high")}
_TAIL_SHUFFLE_CUTOFF = 50  # choice(n, k, replace=False) builds arange(n) when k > n // 50


class Generator:
    """A script's ``np.random.Generator``. ``check(n, dtype)`` refuses a result of ``n`` elements
    (the element limit and the memory budget); ``elements(x)`` counts the elements numpy would
    make of ``x`` (nested lists, arrays, tensors) without building it (``numpy_subset``)."""

    __slots__ = ("_rng", "_check", "_elements")

    def __init__(self, rng: np.random.Generator, check, elements) -> None:
        self._rng = rng
        self._check = check
        self._elements = elements

    def __repr__(self) -> str:
        return f"Generator(PCG64) at 0x{id(self):X}"

    def __str__(self) -> str:
        return "Generator(PCG64)"

    def __copy__(self):
        raise TypeError("a Generator cannot be copied in gradstep scripts: make another with "
                        "np.random.default_rng(seed)")

    def __deepcopy__(self, memo):
        return self.__copy__()

    def _check_sequences(self, args, kwargs) -> None:
        """Nested lists among the arguments, counted before numpy turns them into arrays."""
        for value in (*args, *kwargs.values()):
            if isinstance(value, (list, tuple)):
                self._check(self._elements(value), None)

    def _call(self, name, args, kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}(out=...) is not available in gradstep scripts")
        self._check_sequences(args, kwargs)
        position = _SIZE_AT[name]
        size = kwargs.get("size", args[position] if len(args) > position else None)
        n = _count(size, name)
        if size is None:  # as many as the broadcast of the array parameters
            shapes = []
            for value in _parameters(name, args, kwargs):
                shapes.append(np.shape(value))
            try:
                n = max(n, product(np.broadcast_shapes(*shapes)) or 1)
            except ValueError:
                pass  # numpy reports the mismatch
        self._check(n, kwargs.get("dtype"))
        return getattr(self._rng, name)(*args, **kwargs)

    def standard_normal(self, *args, **kwargs):
        return self._call("standard_normal", args, kwargs)

    def normal(self, *args, **kwargs):
        return self._call("normal", args, kwargs)

    def random(self, *args, **kwargs):
        return self._call("random", args, kwargs)

    def uniform(self, *args, **kwargs):
        return self._call("uniform", args, kwargs)

    def integers(self, *args, **kwargs):
        return self._call("integers", args, kwargs)

    def choice(self, *args, **kwargs):
        self._check_sequences(args, kwargs)
        a = args[0] if args else kwargs.get("a")
        count = _count(kwargs.get("size", args[1] if len(args) > 1 else None), "choice")
        population = _as_int(a)
        if population is None:  # choices of rows of an array: each as large as a row
            total = self._elements(a)
            self._check(total, None)
            along = _length_along(a, kwargs.get("axis", args[4] if len(args) > 4 else 0))
            count *= total // along if along else total
        replace = kwargs.get("replace", args[2] if len(args) > 2 else True)
        if not replace and population is not None and population > 10_000 and (
                count > population // _TAIL_SHUFFLE_CUTOFF):
            self._check(population, np.int64)  # numpy shuffles arange(population) for these
        self._check(count, None)
        return self._rng.choice(*args, **kwargs)

    def permutation(self, x, *args, **kwargs):
        self._check_sequences(args, kwargs)
        n = _as_int(x)
        self._check(n if n is not None else self._elements(x), np.int64)
        return self._rng.permutation(x, *args, **kwargs)

    def shuffle(self, x, *args, **kwargs):
        self._check_sequences((x, *args), kwargs)
        return self._rng.shuffle(x, *args, **kwargs)  # in place: nothing new to count


def default_rng(check, elements, run_seed: int):
    """The script's ``np.random.default_rng``: ``default_rng(seed)`` is numpy's; without a seed
    each call takes the next stream of the run's seed, so that a re-run replays the same numbers
    (never the process's entropy)."""
    unseeded = [0]

    def make(seed=None):
        if isinstance(seed, Generator):
            return seed  # numpy hands back the Generator it is given
        if seed is None:
            seed = [run_seed % (2**63), unseeded[0]]
            unseeded[0] += 1
        return Generator(np.random.default_rng(seed), check, elements)

    make.__name__ = "default_rng"
    return make


def _count(size, name) -> int:
    """Elements of a ``size`` argument (1 when there is none)."""
    if size is None:
        return 1
    n = product(size) if isinstance(size, (tuple, list, np.ndarray)) else product((size,))
    if n is None:
        raise ValueError(f"{name}(): size must be a non-negative int or a tuple of them")
    return n


def _parameters(name, args, kwargs):
    for i, pname in enumerate(_PARAMETERS.get(name, ())):
        if pname in kwargs:
            yield kwargs[pname]
        elif i < len(args):
            yield args[i]


def _as_int(x) -> int | None:
    if isinstance(x, (bool, np.bool_)):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _length_along(a, axis) -> int:
    """The length of ``a`` along ``axis`` (0 when it cannot tell: numpy reports it)."""
    if isinstance(a, (list, tuple)):
        return len(a) if axis == 0 else 0
    shape = getattr(a, "shape", None)
    try:
        return int(shape[axis])
    except (TypeError, IndexError, ValueError):
        return 0
