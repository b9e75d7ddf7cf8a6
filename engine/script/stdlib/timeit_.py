"""``import timeit``: ``default_timer``, and ``timeit``/``repeat`` of a function (each run counts
as a step; a statement given as text is refused: it would be compiled outside the interpreter)."""

from __future__ import annotations

import time

from ..errors import forbidden
from ._support import call


def build(interp) -> dict:
    def _check(stmt):
        if isinstance(stmt, str):
            raise forbidden("timeit with a statement as text is not available: pass a function, "
                            "timeit.timeit(f, number=100)")
        if not callable(stmt):
            raise ValueError("stmt is neither a string nor callable")

    def _time(stmt, number):
        start = time.perf_counter()
        for _ in range(number):
            interp._tick()
            call(interp, stmt)
        return time.perf_counter() - start

    def timeit(stmt="pass", setup="pass", timer=None, number=1000000, globals=None):
        _check(stmt)
        if setup != "pass":
            _check(setup)
            call(interp, setup)
        return _time(stmt, number)

    def repeat(stmt="pass", setup="pass", timer=None, repeat=5, number=1000000,
               globals=None):
        _check(stmt)
        out = []
        for _ in range(repeat):
            interp._tick()
            if setup != "pass":
                _check(setup)
                call(interp, setup)
            out.append(_time(stmt, number))
        return out

    def default_timer():
        return time.perf_counter()

    return {"timeit": timeit, "repeat": repeat, "default_timer": default_timer}
