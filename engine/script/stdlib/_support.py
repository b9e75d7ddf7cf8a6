"""Helpers of the stdlib wrappers: counted iterators, pools, calls back into the script."""

from __future__ import annotations

from ..errors import ScriptError, limit
from ..objects import SafeIterator, screened_arguments, script_exception


def tick_n(interp, n: int) -> None:
    """``n`` steps towards the statement limit (at least one), honouring stop()."""
    if n > 1:
        interp._count += n - 1
    interp._tick()


def ticking(interp, iterable):
    """An iterator over ``iterable`` for C code to consume: each item is screened and counts as a
    step, so ``islice(range(10**15), 10**15 - 1, None)`` ends by the statement limit."""
    if type(iterable) is SafeIterator:
        return iterable
    it = interp._iterate(iterable, interp._current_stmt())
    tick = interp._tick

    def counted():
        for item in it:
            tick()
            yield item

    return counted()


def lazy(interp, it, weigh: bool = False) -> SafeIterator:
    """What the script gets for an iterator made by C code: a SafeIterator (a step per item);
    with ``weigh``, an item of n elements (a tuple of ``product``) counts n steps."""
    if weigh:
        inner = it

        def weighed():
            for item in inner:
                tick_n(interp, len(item))
                yield item

        it = weighed()
    return SafeIterator(it, interp._tick, interp._screen)


def pool(interp, iterable, what: str) -> tuple:
    """The items of ``iterable`` as a tuple (C code would store them all anyway)."""
    try:
        return tuple(interp._materialize(iterable))
    except ScriptError as e:
        if e.kind == "limit":
            raise limit(f"{what}: its input is too long ({e.message})") from None
        raise


def call(interp, fn, *args):
    """``fn(*args)`` as the script would call it (its specials and guards apply)."""
    return interp._call(fn, list(args), {}, interp._current_stmt())


def call_back(interp, fn, args, kwargs):
    """``fn(*args, **kwargs)`` for engine or C code calling a wrapper: the arguments are screened
    and a runtime error leaves as the script's own exception (as ``ScriptFunction.__call__``)."""
    args, kwargs = screened_arguments(interp._screen, args, kwargs)
    try:
        return interp._call(fn, args, kwargs, interp._current_stmt())
    except ScriptError as err:
        exc = script_exception(err)
        if exc is err:
            raise
        raise exc from None


def check_count(n, cap: int, what: str) -> None:
    if isinstance(n, int) and n > cap:
        raise limit(f"{what} = {n} is above gradstep's limit of {cap}")
