"""``import collections``: the real containers (their constructors and methods go through the
interpreter's argument checks, their iterators count as steps); ``deque`` is a subclass whose
growing operations (``*``, ``+``, ``extend``) keep within ``Limits.max_list`` as lists do;
``namedtuple`` makes its class in the script's ``__main__``."""

from __future__ import annotations

import collections

from ..errors import limit
from ..limits import Limits


class _Deque(collections.deque):
    """``collections.deque`` within the run's ``max_list`` (``deque([1]) * 10**8`` is refused
    before it is built; an ``extend`` past the limit empties it and raises). ``build`` makes a
    subclass per run with the run's cap, named as Python's (``collections.deque``)."""

    _cap = Limits().max_list

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._after()

    def _check_result(self, n):
        maxlen = self.maxlen
        if (maxlen is None or maxlen > self._cap) and n > self._cap:
            raise limit(f"deque too long: {n} elements (the limit is {self._cap})")

    def _after(self):
        if len(self) > self._cap:
            self.clear()
            raise limit(f"deque too long: more than {self._cap} elements")

    def __mul__(self, n):
        if isinstance(n, int):
            self._check_result(len(self) * max(n, 0))
        return super().__mul__(n)

    __rmul__ = __mul__

    def __imul__(self, n):
        if isinstance(n, int):
            self._check_result(len(self) * max(n, 0))
        return super().__imul__(n)

    def __add__(self, other):
        if hasattr(other, "__len__"):
            self._check_result(len(self) + len(other))
        return super().__add__(other)

    def __iadd__(self, other):
        self.extend(other)
        return self

    def extend(self, iterable):
        if hasattr(iterable, "__len__"):
            self._check_result(len(self) + len(iterable))
        super().extend(iterable)
        self._after()

    def extendleft(self, iterable):
        if hasattr(iterable, "__len__"):
            self._check_result(len(self) + len(iterable))
        super().extendleft(iterable)
        self._after()

    def __copy__(self):
        return type(self)(self, self.maxlen)


def build(interp) -> dict:
    def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        return collections.namedtuple(typename, field_names, rename=rename, defaults=defaults,
                                      module="__main__")

    deque = type("deque", (_Deque,), {"_cap": interp.limits.max_list, "__slots__": (),
                                       "__module__": "collections", "__qualname__": "deque"})
    return {
        "namedtuple": namedtuple, "deque": deque, "Counter": collections.Counter,
        "OrderedDict": collections.OrderedDict, "defaultdict": collections.defaultdict,
        "ChainMap": collections.ChainMap,
    }
