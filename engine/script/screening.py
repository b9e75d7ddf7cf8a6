"""The one screen of every value the interpreter hands to a script (``ScreeningMixin._screen``).

Whatever comes back from outside the tree walker passes ``_screen(value, node)`` before the script
can name it: attribute reads (also of modules and ``super()``), imports, call results, operator
results, subscripts, the items of iteration and unpacking (``for``, comprehensions, ``a, b = ...``,
``*args``), ``with ... as``, ``except ... as``, and the arguments engine code passes to a script
function. Containers are screened when their items come out, not when they arrive.

The verdict depends on the value's class (a rule per class, cached) and, for a few classes, on the
value (sizes, a bound method's ``__self__``). It returns the value, or what stands in for it (the
proxy of an engine module, an attribute-less wrapper of a generator), or raises ``ScriptError``:
``forbidden`` for modules, frames, code, interpreter and numpy internals, module namespaces,
Python's dangerous builtins, bound methods of refused objects and numpy arrays of Python objects or
strings; ``limit`` for too large tensors, arrays and strings (large arrays also count in the
memory budget, as tensors do). ``_screen`` itself only adds exact-type fast paths in front of the
rules, which return what the rule would (``tests/engine/script/test_screening.py`` pins both).
"""

from __future__ import annotations

import sys
import types

import numpy as np

from ..tensor import Tensor
from .errors import ScriptError, forbidden, limit
from .generators import ScriptGenerator
from .guards import check_elements, check_length
from .modules import ModuleProxy, is_native_function_module, proxy_of
from .objects import Builtin, SafeIterator, ScriptFunction, SuperProxy
from .safety import DENIED_TYPES, check_callable, is_internal_type

# Classes whose values always pass unchanged: plain data, functions (whose attributes are all
# dunders) and the interpreter's script-facing objects. str, list, tuple and dict are not among
# them: their rules look at sizes (and a dict may be a module's namespace).
PASS = frozenset({int, float, bool, complex, type(None), range, slice, bytes, frozenset, set,
                  types.FunctionType, ScriptFunction, SafeIterator, ModuleProxy, SuperProxy,
                  Builtin, ScriptGenerator, type(Ellipsis), type(NotImplemented)})
_REFUSED_DTYPE_KINDS = frozenset("OUSV")  # Python objects, strings, raw bytes
SEQUENCE_MEMORY_LOOK = 8192  # a str, list, tuple or dict this long is a reason to look at memory
_MAX_RULES = 10_000  # classes made in a loop must not pile up in the cache


class ScreeningMixin:
    """``_screen`` and the per-class rules behind it (mixed into ``Interpreter``).

    Uses ``limits``, ``_max_elements``, ``_small_tensor``, ``_small_sequence``, ``_memory``,
    ``_screen_rules`` and ``_tick`` of the interpreter.
    """

    def _screen(self, value, node=None):
        """``value`` as the script may hold it, or ScriptError (forbidden or limit)."""
        t = type(value)
        if t in PASS:
            return value
        if t is Tensor:
            if value._data.size < self._small_tensor:
                return value  # not too large, not tracked: what _check_tensor would let through
            return self._check_tensor(value, node)
        if (t is str or t is list or t is tuple) and len(value) < self._small_sequence:
            return value
        rule = self._screen_rules.get(t)
        if rule is None:
            rule = self._screen_rule(t)
        return rule(self, value, node)

    def _screen_rule(self, t):
        """The rule for values of class ``t`` (cached)."""
        rule = screen_rule(t)
        if len(self._screen_rules) > _MAX_RULES:
            self._screen_rules.clear()
        self._screen_rules[t] = rule
        return rule

    # -- the rules: rule(interp, value, node) -> value ---------------------------------------------
    def _pass(self, value, node):
        return value

    def _screen_tensor(self, value, node):
        return self._check_tensor(value, node)

    def _check_tensor(self, t, node):
        n = t._data.size
        if n > self._max_elements:
            raise limit(f"tensor too large: {n} elements (the limit is {self._max_elements})",
                        node)
        if n >= 16384:
            self._memory.track(t, node)
            if n >= 1 << 20:
                self._memory.check_process(node)
        return t

    def _screen_sized(self, value, node):
        n = len(value)
        if isinstance(value, str) and n > self.limits.max_string:
            # raised without a position: the statement's, as the size guards do
            check_length(n, self.limits.max_string, value)
        if n >= SEQUENCE_MEMORY_LOOK:
            self._memory.check_process(node)  # [[0] * 10**6 for ...] adds up
        return value

    def _screen_dict(self, value, node):
        if "__builtins__" in value or _is_module_dict(value):
            raise forbidden("a module's namespace is not available to scripts", node)
        if len(value) >= SEQUENCE_MEMORY_LOOK:
            self._memory.check_process(node)
        return value

    def _screen_method(self, value, node):
        self._screen(value.__self__, node)  # a bound method of a refused object is refused
        return value

    def _screen_native(self, value, node):
        check_callable(value, node)
        owner = getattr(value, "__self__", None)
        if isinstance(owner, types.ModuleType):
            if not is_native_function_module(owner):  # os.system, sys._getframe
                raise forbidden(f"'{owner.__name__}.{value.__name__}' is not available", node)
        elif owner is not None:
            # a bound builtin method ([].append, frame.clear): as its object
            self._screen(owner, node)
        return value

    def _screen_class(self, value, node):
        check_callable(value, node)
        return value

    def _screen_array(self, value, node):
        if value.dtype.kind in _REFUSED_DTYPE_KINDS:  # np.array([2**100]): C loops over Python ints
            raise forbidden(f"numpy arrays of dtype {value.dtype} are not available in gradstep "
                            "scripts (only numbers and booleans)", node)
        n = value.size
        try:
            check_elements(n, self.limits)
        except ScriptError as e:
            raise e.at(node)
        if n >= 16384:  # counted in max_total_bytes as tensors are
            self._memory.track_array(value, node)
            if n >= 1 << 20:
                self._memory.check_process(node)
        return value

    def _screen_generator(self, value, node):
        return SafeIterator(value, self._tick, self._screen)

    def _screen_module(self, value, node):
        return proxy_of(value, node, f"module '{value.__name__}' is not available to scripts")

    def _refuse(self, value, node):
        raise forbidden(f"a {type(value).__name__} object is not available to scripts", node)


def screen_rule(t):
    """The rule for values of class ``t``; depends on the class only."""
    if t in PASS:
        return ScreeningMixin._pass
    if issubclass(t, Tensor):
        return ScreeningMixin._screen_tensor
    if issubclass(t, types.GeneratorType) or t.__module__ == "itertools":
        # itertools' iterators (Counter.elements() is a chain) run in C without counting: the
        # script holds them as counted SafeIterators
        return ScreeningMixin._screen_generator
    if issubclass(t, types.ModuleType):
        return ScreeningMixin._screen_module
    if issubclass(t, DENIED_TYPES) or is_internal_type(t):
        return ScreeningMixin._refuse
    if issubclass(t, dict):
        return ScreeningMixin._screen_dict
    if issubclass(t, (str, list, tuple)):
        return ScreeningMixin._screen_sized
    if issubclass(t, types.MethodType):
        return ScreeningMixin._screen_method
    if issubclass(t, types.BuiltinFunctionType):
        return ScreeningMixin._screen_native
    if issubclass(t, type):
        return ScreeningMixin._screen_class
    if issubclass(t, np.ndarray):
        return ScreeningMixin._screen_array
    return ScreeningMixin._pass


def _is_module_dict(d) -> bool:
    """``d`` is the namespace of an imported module (``fn.__globals__``, ``vars(builtins)``)."""
    name = d.get("__name__")
    if type(name) is not str:
        return False
    module = sys.modules.get(name)
    return module is not None and getattr(module, "__dict__", None) is d
