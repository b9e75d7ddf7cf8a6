"""``import functools``: ``partial``, ``reduce``, ``lru_cache``/``cache``, ``wraps`` and friends,
calling the wrapped function through the interpreter (its guards and limits apply, nothing
exposes ``__wrapped__``); a cache holds at most ``Limits.max_list`` entries. Not
``cached_property`` (its descriptor hands out a lock) nor ``singledispatch``."""

from __future__ import annotations

import copy
import functools
from collections import OrderedDict
from types import MethodType

from ..objects import ScriptFunction
from ._support import call, call_back, ticking

_EMPTY = object()


class Partial:
    """``functools.partial``: ``func``, ``args`` and ``keywords`` as in Python."""

    __slots__ = ("_interp", "func", "args", "keywords")

    def __init__(self, interp, func, args, keywords) -> None:
        if not callable(func):
            raise TypeError("the first argument must be callable")
        if type(func) is Partial:  # partial(partial(f, 1), 2) flattens, as Python's
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        self._interp = interp
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **kwargs):
        return call_back(self._interp, self.func, [*self.args, *args],
                         {**self.keywords, **kwargs})

    def __repr__(self) -> str:
        parts = [repr(self.func), *map(repr, self.args),
                 *(f"{k}={v!r}" for k, v in self.keywords.items())]
        return f"functools.partial({', '.join(parts)})"

    def __copy__(self):
        return Partial(self._interp, self.func, self.args, dict(self.keywords))

    def __deepcopy__(self, memo):
        return Partial(self._interp, self.func, copy.deepcopy(self.args, memo),
                       copy.deepcopy(self.keywords, memo))


class LruCache:
    """``functools.lru_cache(maxsize)(f)``: a bounded memo of the script's calls."""

    __slots__ = ("_interp", "_fn", "_maxsize", "_cap", "_typed", "_memo", "_hits", "_misses",
                 "__weakref__")

    def __init__(self, interp, fn, maxsize, typed) -> None:
        self._interp = interp
        self._fn = fn
        self._maxsize = maxsize
        cap = interp.limits.max_list
        self._cap = cap if maxsize is None else max(0, min(maxsize, cap))
        self._typed = typed
        self._memo = OrderedDict()
        self._hits = self._misses = 0

    def __call__(self, *args, **kwargs):
        key = functools._make_key(args, kwargs, self._typed)
        memo = self._memo
        value = memo.get(key, _EMPTY)
        if value is not _EMPTY:
            self._hits += 1
            memo.move_to_end(key)
            return value
        self._misses += 1
        value = call_back(self._interp, self._fn, args, kwargs)
        if self._cap:
            memo[key] = value
            if len(memo) > self._cap:
                memo.popitem(last=False)
        return value

    def __get__(self, obj, cls=None):
        return self if obj is None else MethodType(self, obj)

    def cache_info(self):
        return functools._CacheInfo(self._hits, self._misses, self._maxsize, len(self._memo))

    def cache_clear(self):
        self._memo.clear()
        self._hits = self._misses = 0

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return f"<functools._lru_cache_wrapper object {self._fn!r}>"


def build(interp) -> dict:
    def partial(func, /, *args, **keywords):
        return Partial(interp, func, args, keywords)

    def reduce(function, iterable, initial=_EMPTY, /):
        it = ticking(interp, iterable)
        value = next(it, _EMPTY) if initial is _EMPTY else initial
        if value is _EMPTY:
            raise TypeError("reduce() of empty iterable with no initial value")
        for item in it:
            value = call(interp, function, value, item)
        return value

    def lru_cache(maxsize=128, typed=False):
        if callable(maxsize) and not isinstance(maxsize, bool):
            return LruCache(interp, maxsize, 128, typed)  # @lru_cache without arguments
        if maxsize is not None and not isinstance(maxsize, int):
            raise TypeError("Expected first argument to be an integer, a callable, or None")

        def decorating_function(user_function):
            return LruCache(interp, user_function, maxsize, typed)

        return decorating_function

    def cache(user_function, /):
        return LruCache(interp, user_function, None, False)

    def update_wrapper(wrapper, wrapped, assigned=None, updated=None):
        # the name travels (repr, error messages); nothing exposes __wrapped__
        if type(wrapper) is ScriptFunction:
            name = wrapped._name if type(wrapped) is ScriptFunction else getattr(
                wrapped, "__name__", None)
            if isinstance(name, str):
                wrapper._name = name
        return wrapper

    def wraps(wrapped, assigned=None, updated=None):
        return lambda wrapper: update_wrapper(wrapper, wrapped)

    def cmp_to_key(mycmp):
        return functools.cmp_to_key(lambda a, b: call(interp, mycmp, a, b))

    return {
        "partial": partial, "reduce": reduce, "lru_cache": lru_cache, "cache": cache,
        "wraps": wraps, "update_wrapper": update_wrapper, "cmp_to_key": cmp_to_key,
        "total_ordering": functools.total_ordering,
    }
