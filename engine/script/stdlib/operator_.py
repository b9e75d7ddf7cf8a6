"""``import operator``: each function does what the script's own operator would, through the
interpreter (size checks of ``*``/``**``/``+``, item assignment rules); ``attrgetter`` and
``methodcaller`` refuse names starting with ``_`` as attribute syntax does."""

from __future__ import annotations

import operator

from ..errors import forbidden
from ..validate import BINOPS, COMPARE, INPLACE


def build(interp) -> dict:
    def node():
        return interp._current_stmt()

    names = {}

    def binary(op):
        def fn(a, b, /):
            return interp._binop(op, a, b, node())

        fn.__name__ = op.__name__
        return fn

    for op in [*BINOPS.values(), *INPLACE.values()]:
        names[op.__name__] = binary(op)
    names["concat"] = binary(operator.add)
    names["iconcat"] = binary(operator.iadd)
    names["div"] = names["truediv"]

    def comparison(op):
        def fn(a, b, /):
            return interp._screen(interp._native(op, (a, b), None, node()))

        fn.__name__ = op.__name__
        return fn

    for op in COMPARE.values():
        if op.__module__ in ("operator", "_operator"):
            names[op.__name__] = comparison(op)

    def unary(op):
        def fn(a, /):
            return interp._screen(interp._native(op, (a,), None, node()))

        fn.__name__ = op.__name__
        return fn

    for op in (operator.neg, operator.pos, operator.abs, operator.invert, operator.inv,
               operator.not_, operator.truth, operator.index):
        names[op.__name__] = unary(op)

    def contains(a, b, /):
        return interp._truth(interp._native(operator.contains, (a, b), None, node()), node())

    def getitem(a, b, /):
        return interp._getitem(a, b, node())

    def setitem(a, b, c, /):
        interp._setitem(a, b, c, node())

    def delitem(a, b, /):
        if not (isinstance(a, (list, dict)) or type(a) in interp._script_classes
                or interp._is_module(type(a))):
            raise forbidden(f"cannot delete items of {type(a).__name__} objects", node())
        interp._native(operator.delitem, (a, b), None, node())

    def _checked(name):
        if not isinstance(name, str):
            raise TypeError("attribute name must be a string")
        for part in name.split("."):
            if not part or part.startswith("_"):
                raise forbidden(f"attribute '{part}' is not available: names starting with '_' "
                                "are internal", node())
        return name

    def attrgetter(attr, /, *attrs):
        paths = [tuple(_checked(a).split(".")) for a in (attr, *attrs)]

        def get(obj):
            out = []
            for path in paths:
                value = obj
                for part in path:
                    value = interp._getattr(value, part, node())
                out.append(value)
            return out[0] if len(out) == 1 else tuple(out)

        return get

    def methodcaller(name, /, *args, **kwargs):
        _checked(name)
        if "." in name:
            raise TypeError("method name must be a string without dots")

        def caller(obj):
            return interp._call(interp._getattr(obj, name, node()), list(args), dict(kwargs),
                                node())

        return caller

    names.update(contains=contains, getitem=getitem, setitem=setitem, delitem=delitem,
                 attrgetter=attrgetter, methodcaller=methodcaller,
                 itemgetter=operator.itemgetter)
    return names
