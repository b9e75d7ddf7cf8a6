"""The underscore attributes a script may read, each decided on the object when the read runs.

The checker (``validate.py``) lets through only the names of ``safety.may_read_underscore``; here
each is allowed on the objects where it is safe, and every value it gives passes the one screen
(``Interpreter._screen``), as a public attribute's does. Assigning or deleting any name starting
with ``_`` stays refused (``access.py``).

- ``__class__``: ``type(x)``, screened as ``type(x)`` is (a class whose own attributes the class
  rule then limits; ``__bases__``, ``__mro__``, ``__subclasses__`` never pass the checker).
- ``__name__``, ``__qualname__``, ``__module__``, ``__doc__``: a string (``__doc__`` also None); of
  a script function, its own (never the interpreter's ``ScriptFunction`` class's).
- the data model's methods (``safety.DATA_MODEL_METHODS``): through the object's attribute rule,
  as a public method (``super()`` resolves them past the class, numpy's rule refuses them).
- ``_modules``, ``_parameters``, ``_buffers``: of nn.Module instances.
- ``_version``: of tensors, an int (a snapshot, as PyTorch's; never the live counter).
- ``_saved_<role>``: of autograd nodes, PyTorch's saved-value properties the engine defines.
- ``__init__`` of ``super()``, the script's classes and nn.Module classes; namedtuple's API.
- the script's own single-underscore names (``script_owned``): of the script's classes, and of
  the objects of those without an engine base (only these may also be set and deleted).
"""

from __future__ import annotations

import ast

from ..tensor import Tensor
from .errors import forbidden
from .objects import ScriptFunction, SuperProxy
from .safety import (
    CLASS_ATTR,
    DATA_MODEL_METHODS,
    MODULE_STORE_ATTRS,
    NAMEDTUPLE_ATTRS,
    NODE_SAVED_PREFIX,
    READABLE_DUNDER_ATTRS,
    TENSOR_VERSION_ATTR,
    is_engine_module_name,
    is_engine_type,
    is_namedtuple_class,
)


def read_underscore(interp, obj, name: str, node):
    """``obj.<name>`` for a name starting with ``_``, or ScriptError(forbidden)."""
    if name == CLASS_ATTR:
        return interp._screen(type(obj), node)
    if name in READABLE_DUNDER_ATTRS:
        return interp._screen(_text(interp, obj, name, node), node)
    if name in DATA_MODEL_METHODS:
        if type(obj) is SuperProxy:
            return interp._attr_super(obj, name, node)
        return interp._attr_rule(type(obj))(interp, obj, name, node)
    if name == "__init__":
        if type(obj) is SuperProxy:
            if _next_defining(obj, name) is object:
                return _object_init  # super().__init__() of a class whose bases define none
            return interp._attr_super(obj, name, node)
        if isinstance(obj, type) and (obj in interp._script_classes or (
                is_engine_type(obj) and interp._is_module(obj))):
            return interp._attr_generic(obj, name, node)  # nn.Module.__init__(self)
    elif name.startswith("__"):
        pass
    elif name in MODULE_STORE_ATTRS and not isinstance(obj, type) and interp._is_module(
            type(obj)):
        return interp._attr_generic(obj, name, node)
    elif name == TENSOR_VERSION_ATTR and isinstance(obj, Tensor):
        return interp._screen(int(obj._version.value), node)
    elif name in NAMEDTUPLE_ATTRS and is_namedtuple_class(
            obj if isinstance(obj, type) else type(obj)):
        return interp._attr_generic(obj, name, node)  # p._replace(x=1), P._fields
    elif name.startswith(NODE_SAVED_PREFIX) and is_engine_type(type(obj)):
        if isinstance(getattr(type(obj), name, None), property):
            return interp._attr_generic(obj, name, node)  # y.grad_fn._saved_self
    elif type(obj) is SuperProxy:
        if _defined_by_script(interp, _next_defining(obj, name), name):
            return interp._attr_super(obj, name, node)  # super()._helper() of a script base
    elif script_owned(interp, obj, name):
        return interp._attr_generic(obj, name, node)  # self._init_weights, micrograd's _prev
    where = _where(name)
    raise forbidden(f"attribute '{name}' is not available: names starting with '_' are internal"
                    + (f" ({where})" if where else ""), node)


def _next_defining(proxy: SuperProxy, name: str):
    """The class after ``proxy``'s owner in its object's class order that defines ``name``."""
    target = proxy._obj
    mro = (target if isinstance(target, type) else type(target)).__mro__
    if proxy._owner not in mro:
        return None
    for c in mro[mro.index(proxy._owner) + 1:]:
        if name in vars(c):
            return c
    return None


def _object_init(*args, **kwargs) -> None:
    """``object.__init__`` as ``super().__init__`` gives it (Python's is a slot wrapper, which
    the screening refuses): it takes nothing more."""
    if args or kwargs:
        raise TypeError("object.__init__() takes exactly one argument (the instance to "
                        "initialize)")


def script_owned(interp, obj, name: str) -> bool:
    """Whether ``obj.<name>`` (a single-underscore name) is the script's own: defined by the body
    of one of the script's classes (``def _init_weights``; never what a metaclass adds, as
    enum's ``_member_map_``), or set on an object of a script class that has no engine base
    (whose every ``_`` name the script made). An nn.Module subclass's instance names are the
    engine's (``_forward_hooks``), as is whatever its bases define."""
    if name.startswith("__"):
        return False
    classes = interp._script_classes
    cls = obj if isinstance(obj, type) else type(obj)
    if cls not in classes:
        return False
    if plain_script_object(interp, obj):
        return True  # plain script classes (built by type) and their objects: all theirs
    for c in cls.__mro__:
        if name in vars(c):
            # the first class that defines it decides, unless the engine's instance state
            # (the object's __dict__) shadows it
            return _defined_by_script(interp, c, name) and (
                cls is obj or name not in getattr(obj, "__dict__", ()))
    return False


def _defined_by_script(interp, cls, name: str) -> bool:
    return cls is not None and cls in interp._script_classes and (
        name in interp._class_own_names.get(cls, ()))


def plain_script_object(interp, obj) -> bool:
    """An object (or class) of the script's classes with no engine base: its ``_`` names may be
    set and deleted (``self._cache = {}``), as they are the script's alone."""
    classes = interp._script_classes
    cls = obj if isinstance(obj, type) else type(obj)
    return cls in classes and all(c in classes or c is object for c in cls.__mro__)


def _text(interp, obj, name: str, node):
    if type(obj) is ScriptFunction:
        value = _function_text(obj, name)
    elif _is_interpreter_object(obj) and name != "__name__":
        raise forbidden(f"attribute '{name}' of {type(obj).__name__} objects is not available",
                        node)
    else:
        value = interp._native(getattr, (obj, name), None, node)
        if name == "__module__" and type(value) is str and _is_debugger_module(value):
            value = "__main__"  # typing.TypeVar('T') names its caller's module: the script's
    if not (type(value) is str or (value is None and name == "__doc__")):
        raise forbidden(f"attribute '{name}' is not available here", node)
    return value


def _function_text(fn: ScriptFunction, name: str):
    if name in ("__name__", "__qualname__"):
        return fn._name
    if name == "__module__":
        return "__main__"
    tree = fn._node
    return ast.get_docstring(tree) if isinstance(tree, ast.FunctionDef) else None


def _is_debugger_module(name: str) -> bool:
    return name.startswith("engine.") and not is_engine_module_name(name)


def _is_interpreter_object(obj) -> bool:
    module = getattr(type(obj), "__module__", None)
    return isinstance(module, str) and module.startswith("engine.script")


def _where(name: str) -> str | None:
    """Where an allowed underscore name can be read, for the refusal's message."""
    if name in MODULE_STORE_ATTRS:
        return f"'{name}' is readable on nn.Module objects"
    if name == TENSOR_VERSION_ATTR:
        return "'_version' is readable on tensors"
    if name.startswith(NODE_SAVED_PREFIX):
        return f"'{name}' is readable on the autograd nodes that save it"
    if name in NAMEDTUPLE_ATTRS:
        return f"'{name}' is readable on namedtuples"
    if name == "__init__":
        return "'__init__' is readable on super(), the script's classes and nn.Module classes"
    return None
