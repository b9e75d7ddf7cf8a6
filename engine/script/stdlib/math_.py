"""``import math``: all of it; the functions whose result grows faster than their input
(``factorial``, ``comb``, ``perm``, ``prod``, ``lcm``) check the result's size first."""

from __future__ import annotations

import math
import operator

from ..guards import check_int_bits
from ._support import ticking

_LN2 = math.log(2)


def _log2_factorial(n: int) -> float:
    try:
        return math.lgamma(n + 1) / _LN2
    except OverflowError:
        return math.inf


def _check_bits(bits: float, limits) -> None:
    if bits > limits.max_int_bits:
        check_int_bits(int(bits) if bits != math.inf else limits.max_int_bits * 1000, limits)


def build(interp) -> dict:
    limits = interp.limits
    names = {name: getattr(math, name) for name in dir(math) if not name.startswith("_")}

    def _int(x):
        return isinstance(x, int) and not isinstance(x, bool)

    def factorial(n, /):
        if _int(n) and n > 20:
            _check_bits(_log2_factorial(n), limits)
        return math.factorial(n)

    def comb(n, k, /):
        if _int(n) and _int(k) and 0 <= k <= n:
            k = min(k, n - k)
            if k > 8:
                _check_bits(_log2_factorial(n) - _log2_factorial(k) - _log2_factorial(n - k),
                            limits)
            else:
                _check_bits(n.bit_length() * max(k, 1), limits)
        return math.comb(n, k)

    def perm(n, k=None, /):
        if _int(n) and (k is None or _int(k)) and n >= 0:
            kk = n if k is None else k
            if 0 <= kk <= n:
                if kk > 8:
                    _check_bits(_log2_factorial(n) - _log2_factorial(n - kk), limits)
                else:
                    _check_bits(n.bit_length() * max(kk, 1), limits)
        return math.perm(n, k)

    def prod(iterable, /, *, start=1):
        total = start
        for item in ticking(interp, iterable):
            total = interp._binop(operator.mul, total, item, interp._current_stmt())
        return total

    def lcm(*integers):
        result = math.lcm(*integers[:1]) if integers else 1
        for x in integers[1:]:
            result = math.lcm(result, x)
            check_int_bits(result.bit_length(), limits)
        return result

    def fsum(iterable, /):
        return math.fsum(ticking(interp, iterable))

    for fn in (factorial, comb, perm, prod, lcm, fsum):
        names[fn.__name__] = fn
    return names
