"""``getattr``, ``hasattr`` and ``setattr`` of a script: an attribute by a name computed at run
time, under the very policy of ``obj.name`` (``AccessMixin._getattr``/``_setattr``).

Tutorials reach layers and functions by name (``getattr(self, f'fc{i}')``,
``setattr(self, 'fc%d' % i, layer)``, ``hasattr(m, 'reset_parameters')``,
``hasattr(F, 'scaled_dot_product_attention')``, ``getattr(nn, 'ReLU')()``). Python's own
builtins would read past the interpreter, so these stand in for them. A dunder name is refused
outright (the checker sees no name here, and dunder walks start with one), but for setting one
that a class body may define, to a function of the script, on one of the script's classes (d2l's
``add_to_class``); a single-underscore one meets the run-time rule of ``underscore.py``, as
``obj._name`` would.
"""

from __future__ import annotations

from .errors import ScriptError, forbidden
from .objects import ScriptFunction
from .safety import CLASS_DUNDERS

_MISSING = object()


def _name(fn: str, name) -> str:
    if type(name) is not str:  # a str subclass could answer startswith() as it likes
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    if name.startswith("__"):
        raise forbidden(f"{fn}() of '{name}' is not available: names starting with '__' are "
                        "internal (write the attribute out, where the few readable ones work)")
    return name


def _missing(err: ScriptError) -> bool:
    return err.kind == "runtime" and isinstance(err.__cause__, AttributeError)


def script_getattr(interp, obj, name, default=_MISSING):
    name = _name("getattr", name)
    try:
        return interp._getattr(obj, name, None)
    except ScriptError as err:
        if default is _MISSING or not _missing(err):
            raise
        return default


def script_hasattr(interp, obj, name) -> bool:
    name = _name("hasattr", name)
    try:
        interp._getattr(obj, name, None)
    except ScriptError as err:
        if not _missing(err):
            raise  # a refused name stays refused, as Python's hasattr lets other errors out
        return False
    return True


def script_setattr(interp, obj, name, value) -> None:
    if type(name) is str and name in CLASS_DUNDERS and isinstance(obj, type) \
            and obj in interp._script_classes and isinstance(value, ScriptFunction):
        # ``setattr(Class, fn.__name__, fn)`` (d2l's add_to_class): one of the script's classes
        # gets a method a class body may define (zero-argument super() stays refused in it, as
        # Python has no __class__ cell for a def outside a class body)
        setattr(obj, name, value)
        return
    interp._setattr(obj, _name("setattr", name), value, None)
