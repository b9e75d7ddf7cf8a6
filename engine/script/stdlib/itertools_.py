"""``import itertools``: every iterator is lazy and counted (a step per item, a step per element
of the tuples of ``product``/``permutations``/``combinations``), every input is consumed one
counted item at a time, and the pools that C code would store whole are size-checked first. The
functions taking a function call it through the interpreter."""

from __future__ import annotations

import itertools
import operator

from ..errors import limit
from ._support import call, check_count, lazy, pool, ticking

_END = object()


def build(interp) -> dict:
    limits = interp.limits

    def t(it):
        return ticking(interp, it)

    def count(start=0, step=1):
        return lazy(interp, itertools.count(start, step))

    def cycle(iterable, /):
        return lazy(interp, itertools.cycle(t(iterable)))

    def repeat(obj, *args, **kwargs):
        return lazy(interp, itertools.repeat(obj, *args, **kwargs))

    def accumulate(iterable, func=None, *, initial=None):
        def gen():
            it = t(iterable)
            total = next(it, _END) if initial is None else initial
            if total is _END:
                return
            yield total
            for item in it:
                if func is None:
                    total = interp._binop(operator.add, total, item, interp._current_stmt())
                else:
                    total = call(interp, func, total, item)
                yield total

        return lazy(interp, gen())

    def chain(*iterables):
        return lazy(interp, itertools.chain(*[t(i) for i in iterables]))

    def from_iterable(iterables, /):
        def gen():
            for inner in t(iterables):
                yield from t(inner)

        return lazy(interp, gen())

    chain.from_iterable = from_iterable

    def compress(data, selectors):
        return lazy(interp, itertools.compress(t(data), t(selectors)))

    def _predicate(predicate):
        if predicate is None:
            return None
        return lambda x: interp._truth(call(interp, predicate, x), interp._current_stmt())

    def dropwhile(predicate, iterable, /):
        return lazy(interp, itertools.dropwhile(_predicate(predicate), t(iterable)))

    def takewhile(predicate, iterable, /):
        return lazy(interp, itertools.takewhile(_predicate(predicate), t(iterable)))

    def filterfalse(predicate, iterable, /):
        return lazy(interp, itertools.filterfalse(_predicate(predicate), t(iterable)))

    def starmap(function, iterable, /):
        def gen():
            for args in t(iterable):
                yield interp._call(function, list(interp._screened_items(args, None)), {},
                                   interp._current_stmt())

        return lazy(interp, gen())

    def islice(iterable, *args):
        return lazy(interp, itertools.islice(t(iterable), *args))

    def zip_longest(*iterables, fillvalue=None):
        return lazy(interp, itertools.zip_longest(*[t(i) for i in iterables],
                                                  fillvalue=fillvalue))

    def pairwise(iterable, /):
        return lazy(interp, itertools.pairwise(t(iterable)))

    def tee(iterable, n=2, /):
        check_count(n, limits.max_list, "tee(iterable, n): n")
        return tuple(lazy(interp, it) for it in itertools.tee(t(iterable), n))

    def groupby(iterable, key=None):
        keyfunc = None if key is None else (lambda x: call(interp, key, x))

        def gen():
            for k, group in itertools.groupby(t(iterable), keyfunc):
                yield k, lazy(interp, group)

        return lazy(interp, gen())

    def product(*iterables, repeat=1):
        pools = [pool(interp, i, "itertools.product") for i in iterables]
        if isinstance(repeat, int) and repeat > 0:
            held = sum(len(p) for p in pools) * repeat
            if held > limits.max_list:
                raise limit(f"itertools.product would hold {held} items (the limit is "
                            f"{limits.max_list})")
        return lazy(interp, itertools.product(*pools, repeat=repeat), weigh=True)

    def _r(r, n, what):
        if isinstance(r, int) and not isinstance(r, bool):
            check_count(r, limits.max_list, f"{what}(iterable, r): r")
        return r

    def permutations(iterable, r=None):
        items = pool(interp, iterable, "itertools.permutations")
        return lazy(interp, itertools.permutations(items, _r(r, len(items), "permutations")),
                    weigh=True)

    def combinations(iterable, r):
        items = pool(interp, iterable, "itertools.combinations")
        return lazy(interp, itertools.combinations(items, _r(r, len(items), "combinations")),
                    weigh=True)

    def combinations_with_replacement(iterable, r):
        items = pool(interp, iterable, "itertools.combinations_with_replacement")
        return lazy(interp, itertools.combinations_with_replacement(
            items, _r(r, len(items), "combinations_with_replacement")), weigh=True)

    fns = (count, cycle, repeat, accumulate, chain, compress, dropwhile, takewhile, filterfalse,
           starmap, islice, zip_longest, pairwise, tee, groupby, product, permutations,
           combinations, combinations_with_replacement)
    return {fn.__name__: fn for fn in fns}
