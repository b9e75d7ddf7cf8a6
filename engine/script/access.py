"""Reaching into values: attributes, items, assignment targets, calls and truth.

Every path by which a script touches an object goes through here, so this is where the safety
policy (``safety.py``) is applied: names starting with ``_`` are refused but for the few that
``underscore.py`` reads, assignment is allowed
only on the script's own objects (and a tensor's ``requires_grad``/``grad``/``data``), and every
value coming in from engine code is screened.
"""

from __future__ import annotations

import argparse
import ast
import operator
import sys
import types
from itertools import repeat
from types import MethodType

import numpy as np

from ..tensor import Tensor
from .errors import ScriptError, forbidden, limit
from .generators import ScriptGenerator
from .guards import check_binop, check_expanded_size, check_length
from .limits import limit_note
from .modules import ModuleProxy
from .objects import Builtin, SafeIterator, ScriptFunction, SuperProxy
from .safety import (
    CTX_ATTRS,
    DENIED_CONSTRUCTORS,
    DENIED_TYPES,
    DENIED_VALUE_ATTRS,
    NODE_ATTRS,
    NUMPY_ATTRS,
    SETTABLE_MODULE_FLAGS,
    TENSOR_SETTABLE,
    check_callable,
    is_engine_type,
)
from .screening import PASS, ScreeningMixin
from .specials import container_method
from .underscore import may_write_underscore, read_underscore, remember_written

_RISKY = frozenset({int, bool, str, bytes, bytearray, list, tuple})
_NESTED = (list, tuple, dict, set, frozenset)
_SCALARS = frozenset({int, float, bool, complex, np.float64, np.float32, np.int64, np.bool_})
_GUARDED_METHODS = frozenset({"count", "index", "remove", "sort", "__contains__", "tolist",
                              "astype", "dot"})
_SIZED_CONTAINERS = (list, dict, set, bytearray)
_OBJECT_GETATTRIBUTE = object.__getattribute__
_MISSING = object()
_getitem = operator.getitem
# Builtins whose work on a range does not depend on its length (len, truth, hash and isinstance
# read its start, stop and step).
_RANGE_CONSTANT_TIME = frozenset({len, bool, isinstance, callable})
_RANGE_CONSTANT_BUILTINS = frozenset({"hash", "id", "type", "print"})  # the interpreter's own


class AccessMixin(ScreeningMixin):
    """Attribute, item and call access under the safety policy (mixed into ``Interpreter``)."""

    # -- the one way to call engine or Python code ----------------------------------------------
    def _native(self, fn, args, kwargs, node):
        """``fn(*args, **kwargs)``, its exceptions turned into the script's ScriptError at ``node``
        (the caller screens what it returns)."""
        try:
            if kwargs:
                return fn(*args, **kwargs)
            return fn(*args)
        except ScriptError:
            raise
        except Exception as e:
            raise self._runtime(e, node) from e

    # -- attributes --------------------------------------------------------------------------------
    def _getattr(self, obj, name, node):
        if name[0] == "_":
            return read_underscore(self, obj, name, node)
        return self._attr_rule(type(obj))(self, obj, name, node)

    def _attr_rule(self, t):
        """The attribute rule for objects of class ``t``: rule(interp, obj, name, node), cached."""
        rule = self._attr_rules.get(t)
        if rule is None:
            rule = self._rule_for(t)
            if len(self._attr_rules) > 10_000:  # classes made in a loop must not pile up here
                self._attr_rules.clear()
            self._attr_rules[t] = rule
        return rule

    def _rule_for(self, t):
        if t is ModuleProxy:
            return AccessMixin._attr_proxy
        if t is SuperProxy:
            return AccessMixin._attr_super
        if t is ScriptFunction or t is SafeIterator:
            return AccessMixin._attr_none
        if t is ScriptGenerator:
            return AccessMixin._attr_generator
        if issubclass(t, DENIED_TYPES) or issubclass(t, types.GeneratorType):
            return AccessMixin._attr_denied
        if issubclass(t, type):
            return AccessMixin._attr_class
        if issubclass(t, (str, bytes, bytearray)):
            return AccessMixin._attr_text
        if issubclass(t, (np.ndarray, np.generic, np.dtype)):
            return AccessMixin._attr_numpy
        if issubclass(t, (int, float, complex)):
            return AccessMixin._attr_value
        if is_engine_type(t) and any(c.__name__ in ("Node", "AccumulateGrad") for c in t.__mro__):
            return AccessMixin._attr_node
        return AccessMixin._attr_generic

    def _method_for(self, t, name):
        """The plain function that ``getattr(obj, name)`` binds for objects of class ``t``, or
        None when that attribute needs the general path; cached per (class, name).

        Calling it with the object first is what ``_getattr`` + ``_call`` would do: the class's
        rule is the generic one (get, then screen a bound method, which passes), the function is
        no special (``backward``) and a plain Python function. The script's own classes are left
        out (they can change), and the caller still checks the instance's ``__dict__``.
        """
        fn = None
        if name[0] != "_" and t not in self._script_classes:
            rule = self._attr_rules.get(t)
            if rule is None:
                rule = self._rule_for(t)
            if rule is AccessMixin._attr_generic and t.__getattribute__ is _OBJECT_GETATTRIBUTE:
                for klass in t.__mro__:
                    attr = klass.__dict__.get(name, _MISSING)
                    if attr is not _MISSING:
                        if type(attr) is types.FunctionType and (
                                id(attr) not in self._method_specials):
                            fn = attr
                        break
        methods = self._methods.get(t)
        if methods is None:
            if len(self._methods) > 10_000:  # classes made in a loop must not pile up here
                self._methods.clear()
            methods = self._methods[t] = {}
        if len(methods) < 10_000:
            methods[name] = fn
        return fn

    def _call_method(self, fn, obj, args, kwargs, node):
        """``obj.name(*args, **kwargs)`` for a function from ``_method_for``: the end of
        ``_call_plain`` for a bound method, without making it."""
        if args:
            self._check_arguments(args, node)
        result = self._native(fn, (obj, *args), kwargs, node)
        t = type(result)
        if t in PASS or (t is Tensor and result._data.size < self._small_tensor):
            return result  # _screen's own fast paths, without the call
        return self._screen(result, node)

    def _attr_generic(self, obj, name, node):
        return self._screen(self._native(getattr, (obj, name), None, node), node)

    def _attr_proxy(self, obj, name, node):
        """A module's attribute (also ``from module import name``)."""
        flags = self._module_flags
        if flags and (obj._name, name) in flags:
            return flags[obj._name, name]  # set by this run (_set_module_flag)
        return self._screen(obj._lookup(name, node), node)

    def _set_module_flag(self, proxy, name, value, node):
        """``torch.backends.cudnn.deterministic = True``: kept for the run, read back as set."""
        setter = SETTABLE_MODULE_FLAGS[proxy._name, name]
        if type(value) is not bool:
            raise self._runtime(RuntimeError(
                f"{setter} expects a bool, but got {type(value).__name__}"), node)
        self._module_flags[proxy._name, name] = value

    def _attr_super(self, obj, name, node):
        return self._attr_generic(super(obj._owner, obj._obj), name, node)

    def _attr_none(self, obj, name, node):
        kind = "function" if type(obj) is ScriptFunction else "iterator"
        raise self._runtime(AttributeError(f"'{kind}' object has no attribute '{name}'"), node)

    def _attr_generator(self, obj, name, node):
        if name in ("send", "throw", "close"):
            return getattr(obj, name)
        raise self._runtime(AttributeError(f"'generator' object has no attribute '{name}'"), node)

    def _attr_denied(self, obj, name, node):
        raise forbidden(f"attributes of {type(obj).__name__} objects are not available", node)

    def _attr_class(self, obj, name, node):
        if obj in self._script_classes:
            return self._attr_generic(obj, name, node)
        if is_engine_type(obj) and not issubclass(obj, (np.ndarray, np.generic)):
            value = self._attr_generic(obj, name, node)
            if isinstance(value, (dict, list, set, bytearray)):
                raise forbidden(f"{obj.__name__}.{name} is the engine's shared state", node)
            return value
        raise forbidden(f"attributes of the class '{obj.__name__}' are not available", node)

    def _attr_text(self, obj, name, node):
        if name in DENIED_VALUE_ATTRS:
            raise forbidden(f"str.{name} is not available", node)
        guarded = self._text_methods.get(name)
        if guarded is not None:
            return MethodType(guarded, obj)
        return self._attr_generic(obj, name, node)

    def _attr_value(self, obj, name, node):
        if name in DENIED_VALUE_ATTRS:
            raise forbidden(f"{type(obj).__name__}.{name} is not available", node)
        return self._attr_generic(obj, name, node)

    def _attr_numpy(self, obj, name, node):
        if name not in NUMPY_ATTRS:
            raise forbidden(f"numpy's '{name}' is not available in gradstep scripts", node)
        return self._attr_generic(obj, name, node)

    def _attr_node(self, obj, name, node):
        if _is_function_ctx(obj) and (name in CTX_ATTRS or _own_ctx_attr(obj, name)):
            return self._attr_generic(obj, name, node)
        if name not in NODE_ATTRS:
            err = AttributeError(f"'{obj.name().rsplit(':', 1)[-1]}' object has no attribute "
                                 f"'{name}'")
            raise self._runtime(err, node)
        return self._attr_generic(obj, name, node)

    def _setattr(self, obj, name, value, node):
        own = name[0] == "_"
        if own and not may_write_underscore(self, obj, name):
            # the few readable ones (net._modules) are never assigned; the script's own objects'
            # single-underscore names are theirs (self._cache = {}), but for the engine's
            raise forbidden(f"attribute '{name}' cannot be assigned: {_internal(self, obj, name)}",
                            node)
        t = type(obj)
        if t is ModuleProxy and (obj._name, name) in SETTABLE_MODULE_FLAGS:
            return self._set_module_flag(obj, name, value, node)
        if t is Tensor or isinstance(obj, Tensor):
            if name not in TENSOR_SETTABLE:
                raise forbidden(f"a tensor's '{name}' cannot be set (only requires_grad, grad and "
                                "data can)", node)
        elif t is argparse.Namespace:
            pass  # parse_args' result (args.device = ...), plain data the script owns
        elif t in self._script_classes or obj in self._script_classes or self._is_module(t):
            pass
        elif _is_function_ctx(obj) and name not in CTX_ATTRS and not hasattr(type(obj), name):
            pass  # ctx.constant = 2 in a custom Function's forward
        else:
            raise forbidden(
                f"cannot set attributes of {_describe(obj)}: only objects of the script's own "
                "classes (and nn.Module instances) can be changed", node)
        self._native(setattr, (obj, name, value), None, node)
        if own:
            remember_written(self, obj, name)

    def _is_module(self, t) -> bool:
        known = self._module_types.get(t)
        if known is None:
            nn = sys.modules.get("engine.nn")
            base = getattr(nn, "Module", None)
            known = isinstance(base, type) and issubclass(t, base)
            if len(self._module_types) > 10_000:
                self._module_types.clear()
            self._module_types[t] = known
        return known

    # -- items -------------------------------------------------------------------------------------
    def _setitem(self, obj, key, value, node):
        if not (isinstance(obj, (list, dict, Tensor, np.ndarray)) or self._is_module(type(obj))
                or type(obj) in self._script_classes):  # a script class's __setitem__
            raise forbidden(f"cannot assign items of {type(obj).__name__} objects", node)
        if type(key) is tuple and isinstance(obj, dict):
            check_expanded_size(key, self.limits)
        self._native(operator.setitem, (obj, key, value), None, node)
        if isinstance(obj, (list, dict)):
            check_length(len(obj), self.limits.max_list)
        elif type(obj) is not Tensor and isinstance(obj, Tensor):
            self._check_tensor(obj, node)

    def _getitem(self, obj, key, node):
        """``obj[key]`` (a subscript, also the current value of ``obj[key] += ...``)."""
        if type(key) is tuple and isinstance(obj, dict):
            check_expanded_size(key, self.limits)
        return self._screen(self._native(_getitem, (obj, key), None, node), node)

    def _delete(self, target, act):
        kind = target.__class__
        if kind is ast.Name:
            name = target.id
            scope = self.globals if (act.declared and act.declared.get(name) == "global") else (
                act.locals)
            if name not in scope:
                raise NameError(f"name '{name}' is not defined")
            del scope[name]
        elif kind is ast.Subscript:
            obj = self._eval(target.value, act)
            key = self._eval(target.slice, act)
            if not (isinstance(obj, (list, dict)) or self._is_module(type(obj))
                    or type(obj) in self._script_classes):
                raise forbidden(f"cannot delete items of {type(obj).__name__} objects", target)
            self._native(operator.delitem, (obj, key), None, target)
        elif kind is ast.Attribute:
            obj = self._eval(target.value, act)
            name = target.attr
            if name[0] == "_" and not may_write_underscore(self, obj, name):
                # the few readable ones (net._modules) are never deleted
                raise forbidden(f"attribute '{name}' cannot be deleted: "
                                f"{_internal(self, obj, name)}", target)
            if not (type(obj) in self._script_classes or obj in self._script_classes
                    or self._is_module(type(obj))):
                raise forbidden(f"cannot delete attributes of {_describe(obj)}", target)
            self._native(delattr, (obj, name), None, target)
            if name[0] == "_":
                remember_written(self, obj, name, deleted=True)
        else:
            for elt in target.elts:
                self._delete(elt, act)

    # -- assignment targets ------------------------------------------------------------------------
    def _assign(self, target, value, act):
        kind = target.__class__
        if kind is ast.Name:
            self._store_name(target.id, value, act)
        elif kind is ast.Tuple or kind is ast.List:
            self._unpack(target.elts, value, act, target)
        elif kind is ast.Attribute:
            self._setattr(self._eval(target.value, act), target.attr, value, target)
        elif kind is ast.Subscript:
            obj = self._eval(target.value, act)
            self._setitem(obj, self._eval(target.slice, act), value, target)
        else:
            raise forbidden("cannot assign to this expression", target)

    def _store_name(self, name, value, act):
        declared = act.declared
        if declared is not None and name in declared:
            if declared[name] == "global":
                self.globals[name] = value
                return
            for scope in act.enclosing:
                if name in scope:
                    scope[name] = value
                    return
            raise SyntaxError(f"no binding for nonlocal '{name}' found")
        act.locals[name] = value

    def _unpack(self, elts, value, act, node):
        items = self._screened_items(value, node)
        star = [i for i, e in enumerate(elts) if e.__class__ is ast.Starred]
        if not star:
            if len(items) != len(elts):
                if len(items) < len(elts):
                    raise ValueError(f"not enough values to unpack (expected {len(elts)}, got "
                                     f"{len(items)})")
                raise ValueError(f"too many values to unpack (expected {len(elts)})")
            for e, v in zip(elts, items):
                self._assign(e, v, act)
            return
        i = star[0]
        after = len(elts) - i - 1
        if len(items) < len(elts) - 1:
            raise ValueError(f"not enough values to unpack (expected at least {len(elts) - 1}, "
                             f"got {len(items)})")
        for e, v in zip(elts[:i], items[:i]):
            self._assign(e, v, act)
        self._assign(elts[i].value, items[i:len(items) - after], act)
        for e, v in zip(elts[i + 1:], items[len(items) - after:]):
            self._assign(e, v, act)

    # -- truth and iteration -----------------------------------------------------------------------
    def _truth(self, value, node):
        t = type(value)
        if t is bool:
            return value
        try:
            return bool(value)
        except ScriptError:
            raise
        except Exception as e:
            raise self._runtime(e, node) from e

    def _iterate(self, iterable, node):
        """An iterator of the screened items of ``iterable``, for a ``for`` loop, a comprehension
        or ``_materialize`` (never handed to the script)."""
        it = self._native(iter, (iterable,), None, node)
        t = type(iterable)
        if t is range or t is SafeIterator:
            return it  # ints; items the SafeIterator screens itself
        return map(self._screen, it, repeat(node))

    def _screened_items(self, iterable, node):
        """The screened items of ``iterable`` as a list or tuple (unpacking, ``f(*args)``)."""
        t = type(iterable)
        if t is list or t is tuple:
            screen = self._screen
            return [screen(item, node) for item in iterable]
        return self._materialize(iterable, node)  # screened by _iterate (range: ints)

    def _materialize(self, iterable, node=None):
        """The items of ``iterable`` as a list or tuple, refusing more than ``max_list``."""
        t = type(iterable)
        if t is list or t is tuple:
            return iterable
        cap = self.limits.max_list
        if t is range:
            try:
                n = len(iterable)
            except OverflowError:
                n = cap + 1
            check_length(n, cap)
            return list(iterable)
        out = []
        for item in self._iterate(iterable, node):
            self._tick()
            out.append(item)
            if len(out) > cap:
                check_length(len(out), cap)
        return out

    def _counted(self, iterable, node):
        """The screened items of ``iterable`` for C code that takes them one by one (``sum``),
        each a step of the statement budget, as a loop's."""
        tick = self._tick
        for item in self._iterate(iterable, node):
            tick()
            yield item

    # -- operators ---------------------------------------------------------------------------------
    def _binop(self, op, a, b, node):
        ta = type(a)
        tb = type(b)
        if ta is Tensor or tb is Tensor:
            if ta is tb:
                if a._data.size * b._data.size > self._max_elements:
                    self._precheck_shapes(op, a._data, b._data, node)
            elif ta not in _SCALARS and tb not in _SCALARS:
                self._precheck_mixed(op, a, b, node)  # t + array, t * [[...]]
        elif ta is np.ndarray and tb is np.ndarray:
            self._precheck_shapes(op, a, b, node)
        elif (ta is np.ndarray or tb is np.ndarray) and (
                ta not in _SCALARS and tb not in _SCALARS):
            self._precheck_mixed(op, a, b, node)  # array (10**5, 1) + [[...] * 10**5]
        elif ta in _RISKY or tb in _RISKY:
            try:
                check_binop(op, a, b, self.limits)
            except ScriptError as e:
                raise e.at(node)
        try:
            result = op(a, b)
        except ScriptError:
            raise
        except Exception as e:
            raise self._runtime(e, node) from e
        t = type(result)
        if t in PASS or (t is Tensor and result._data.size < self._small_tensor):
            return result  # _screen's own fast paths, without the call
        return self._screen(result, node)

    def _precheck_mixed(self, op, a, b, node):
        """``_precheck_shapes`` for a tensor or array with another kind of operand."""
        arrays = []
        for x in (a, b):
            if isinstance(x, Tensor):
                x = x._data
            elif isinstance(x, (list, tuple)):
                try:
                    x = np.asarray(x, dtype=float)  # its shape (bounded by max_list)
                except (TypeError, ValueError):
                    return  # the engine or numpy reports it
            if not isinstance(x, np.ndarray):
                return
            arrays.append(x)
        self._precheck_shapes(op, arrays[0], arrays[1], node)

    def _precheck_shapes(self, op, a, b, node):
        """Refuse ``a op b`` (arrays) whose broadcast or matmul result would be too large."""
        if a.size * b.size <= self._max_elements:
            return  # the result cannot be larger than this
        sa, sb = a.shape, b.shape
        try:
            if op.__name__ in ("matmul", "imatmul"):
                n = 1
                for d in sa[:-1]:
                    n *= d
                n *= sb[-1] if len(sb) > 1 else 1
            else:
                n = 1
                for d in np.broadcast_shapes(sa, sb):
                    n *= d
        except (ValueError, IndexError):
            return  # the engine reports the shape error itself
        if n > self._max_elements:
            raise limit(f"tensor too large: {n} elements (the limit is {self._max_elements})",
                        node)

    # -- calls -------------------------------------------------------------------------------------
    def _call(self, func, args, kwargs, node):
        t = type(func)
        if t is ScriptFunction:
            return self._invoke(func, args, kwargs)
        if t is MethodType:
            fn = func.__func__
            if type(fn) is ScriptFunction:
                return self._invoke(fn, (func.__self__, *args), kwargs)
            special = self._method_specials.get(id(fn))
            if special is not None:
                return special(self, func.__self__, args, kwargs, node)
        else:
            special = self._specials.get(id(func))
            if special is not None:
                return special(self, args, kwargs, node)
        return self._call_plain(func, args, kwargs, node)

    def _call_plain(self, func, args, kwargs, node):
        ft = type(func)
        if ft is not MethodType:
            check_callable(func, node)
            if ft not in self._callable_types:
                if isinstance(func, DENIED_TYPES):
                    raise forbidden(f"calling a {type(func).__name__} is not available", node)
                if func.__class__ is ft:  # the test above depends on the class only
                    if len(self._callable_types) > 10_000:
                        self._callable_types.clear()
                    self._callable_types.add(ft)
        self._check_arguments(args, node, func)
        is_class = isinstance(func, type)
        building_module = False
        if is_class:
            building_module = self._constructible.get(func)
            if building_module is None:
                if (func in DENIED_CONSTRUCTORS or func.__module__.startswith("engine.script")
                        or issubclass(func, DENIED_TYPES) or issubclass(func, type)):
                    # type(x) hands out classes; the interpreter's own, raw numpy buffers and
                    # metaclasses (type(type(x)) is Tensor's) stay unbuilt
                    raise forbidden(f"creating {func.__name__} objects is not available", node)
                building_module = self._is_module(func)
                if func not in self._script_classes:  # those can change (C.__module__ = ...)
                    if len(self._constructible) > 10_000:
                        self._constructible.clear()
                    self._constructible[func] = building_module
        if ft is types.BuiltinMethodType and func.__name__ in _GUARDED_METHODS:
            try:  # xs.count(b), xs.sort(key=int), array.tolist(): measured first (specials.py)
                kwargs = container_method(self, func, args, kwargs, node)
            except ScriptError as e:
                raise e.at(node)
        result = self._native(func, args, kwargs, node)
        if type(result) is int and result.bit_length() > self.limits.max_int_bits:
            raise limit(f"integer too large: {result.bit_length()} bits (the limit is "
                        f"{self.limits.max_int_bits})", node)
        if building_module:
            for parameter in result.parameters():
                self._check_tensor(parameter, node)
        if type(func) is types.BuiltinMethodType:
            owner = func.__self__
            if isinstance(owner, _SIZED_CONTAINERS) and len(owner) > self.limits.max_list:
                owner.clear()  # the script grew a container past the limit: drop it now
                check_length(self.limits.max_list + 1, self.limits.max_list)
        return self._screen(result, node)

    def _check_arguments(self, args, node, func=None):
        """Refuse arguments whose use in C code would be unbounded (a huge range, a list of lists
        that expands past the limit)."""
        for a in args:
            ta = type(a)
            if ta is range:
                if func not in _RANGE_CONSTANT_TIME and not (
                        type(func) is Builtin and func._name in _RANGE_CONSTANT_BUILTINS):
                    self._materialize_size(a, node, func)
            elif ta is list or ta is tuple:
                # [0, shared] compares, hashes or prints its nested items in C code too
                for x in a:
                    if isinstance(x, _NESTED):
                        try:
                            check_expanded_size(a, self.limits)
                        except ScriptError as e:
                            raise e.at(node)
                        break

    def _materialize_size(self, r, node, func=None):
        """Refuse handing C code a range it would walk item by item past ``max_list``."""
        try:
            n = len(r)
        except OverflowError:
            n = self.limits.max_list + 1
        if n > self.limits.max_list:
            name = getattr(func, "__name__", None) or getattr(func, "_name", None)
            raise limit(f"{f'{name}() of ' if name else ''}a range of {n} items: more items "
                        f"than one call may take ({limit_note('max_list', self.limits)})", node)

    def _make_super(self, args, act, node):
        if not args:
            fn = act.function
            owner = getattr(fn, "_owner", None) if fn is not None else None
            if act.self_arg is None:
                raise RuntimeError("super(): no arguments")
            if owner is None:  # a def outside a class body (d2l's add_to_class), as Python says
                raise RuntimeError("super(): __class__ cell not found")
            return SuperProxy(owner, act.self_arg)
        if len(args) != 2:
            raise TypeError("super() takes 0 or 2 arguments in gradstep scripts")
        cls, obj = args
        if cls not in self._script_classes:
            raise forbidden("super() works with the script's own classes", node)
        if not (isinstance(obj, cls) or isinstance(obj, type) and issubclass(obj, cls)):
            # super(B, cls) in a classmethod: obj a subclass
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        return SuperProxy(cls, obj)


def _internal(interp, obj, name: str) -> str:
    """Why ``obj.<name>`` may not be written, for the refusal's message."""
    cls = obj if isinstance(obj, type) else type(obj)
    if name[1:2] != "_" and cls in interp._script_classes:
        base = next(c for c in cls.__mro__ if c not in interp._script_classes)
        return (f"the engine's {base.__name__} base uses it (a name of the script's own starting "
                "with '_' may be set; pick another)")
    return "names starting with '_' are internal"


def _describe(obj) -> str:
    if isinstance(obj, ModuleProxy):
        return f"the module '{obj._name}'"
    if isinstance(obj, type):
        return f"the class '{obj.__name__}'"
    return f"{type(obj).__name__} objects"


def _is_function_ctx(obj) -> bool:
    """Whether ``obj`` is the node (and ctx) of a custom ``autograd.Function`` call."""
    function = sys.modules.get("engine.autograd.function")
    return function is not None and isinstance(obj, function.BackwardCFunction)


def _own_ctx_attr(ctx, name: str) -> bool:
    """An attribute the script set on ``ctx`` itself, never the node's own state (its slots and
    methods are the class's)."""
    return name[0] != "_" and name in vars(ctx) and not hasattr(type(ctx), name)

