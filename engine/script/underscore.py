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
- ``__version__`` of the engine's modules (``torch.__version__``) and numpy's, a string.
- ``object.__init__`` (``object.__init__(self)`` written out): a stand-in taking the instance.
- the script's own single-underscore names (``script_owned``, set and deleted by
  ``may_write_underscore``): of the script's classes and their objects, but for the names their
  engine bases use. The rule protects the engine's own state (a module's ``_parameters`` and
  hooks, what ``Module.__init__`` sets, a base class's ``_version``) and whatever leads to the
  interpreter's internals; a name the script made (``self._hidden = 4`` in an nn.Module
  subclass) is the script's alone, and remembered per object (``_remember``), so that a value
  the engine put under the same name later stays the engine's.
"""

from __future__ import annotations

import ast
import functools
import sys
import weakref

from ..tensor import Tensor
from .errors import forbidden
from .modules import ModuleProxy
from .objects import ScriptFunction, SuperProxy
from .safety import (
    CLASS_ATTR,
    DATA_MODEL_METHODS,
    MODULE_STORE_ATTRS,
    MODULE_VERSION_ATTR,
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
        if obj is object:
            return _object_init_of  # object.__init__(self), as older tutorials write it
    elif name == MODULE_VERSION_ATTR:
        if type(obj) is ModuleProxy:  # an engine module's, numpy's
            value = interp._attr_proxy(obj, name, node)
            if isinstance(value, str):
                return value
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


def _object_init_of(*args, **kwargs) -> None:
    """``object.__init__`` read off ``object``: the instance, then nothing more."""
    if not args:
        raise TypeError("descriptor '__init__' of 'object' object needs an argument")
    _object_init(*args[1:], **kwargs)


def script_owned(interp, obj, name: str) -> bool:
    """Whether ``obj.<name>`` (a single-underscore name) is the script's own: defined by the body
    of one of the script's classes (``def _init_weights``; never what a metaclass adds, as
    enum's ``_member_map_``) or set by the script (``may_write_underscore``) on one of those
    classes or their objects. Whatever the engine's bases define, or put in the object's state
    (an nn.Module's ``_forward_hooks``), is the engine's. A name nobody defined is the script's
    to miss (an AttributeError, as Python's)."""
    if name.startswith("__"):
        return False
    entry = interp._own_attrs.get(id(obj))
    if entry is not None and name in entry[1] and entry[0]() is obj:
        # set by the script and still holding its value (the common read, self._hidden in a
        # forward); such a name passed may_write_underscore, so no engine base defines it
        state = getattr(obj, "__dict__", None)
        if type(state) is dict and state.get(name, _STATE) is entry[1][name]:
            return True
    cls = obj if isinstance(obj, type) else type(obj)
    if cls not in interp._script_classes:
        return False
    if plain_script_object(interp, obj):
        return True  # plain script classes (built by type) and their objects: all theirs
    defined = next((c for c in cls.__mro__ if name in vars(c)), None)
    if defined is not None and not _defined_by_script(interp, defined, name):
        return False  # the first class that defines it decides
    if cls is obj:
        return defined is not None
    found, value = _instance_value(interp, obj, name)
    if found is _STORE:
        return True  # what the module's stores hold is readable through them anyway
    if found:
        return _set_by_script(interp, obj, name, value)
    return not _engine_state_name(interp, cls, name)


def may_write_underscore(interp, obj, name: str) -> bool:
    """Whether the script may set or delete ``obj.<name>`` (a name starting with ``_``): a
    single-underscore name of one of the script's classes or their objects that no engine base
    defines, that is not the instance state ``nn.Module.__init__`` makes, and that the engine
    has not put in the object (``self._cache = {}``, ``Net._made += 1``)."""
    if name.startswith("__"):
        return False
    if plain_script_object(interp, obj):
        return True
    cls = obj if isinstance(obj, type) else type(obj)
    classes = interp._script_classes
    if cls not in classes or _engine_state_name(interp, cls, name) or any(
            name in vars(c) for c in cls.__mro__ if c not in classes):
        return False
    if cls is obj:
        return True
    found, value = _instance_value(interp, obj, name)
    return not found or found is _STORE or _set_by_script(interp, obj, name, value)


def remember_written(interp, obj, name: str, deleted: bool = False) -> None:
    """After the script set (or deleted) ``obj.<name>``, allowed by ``may_write_underscore``:
    the name (and the value it now holds) are the script's."""
    if plain_script_object(interp, obj):
        return  # all of its names are the script's anyway
    if isinstance(obj, type):
        own = interp._class_own_names.get(obj, frozenset())
        interp._class_own_names[obj] = own - {name} if deleted else own | {name}
        return
    entry = interp._own_attrs.get(id(obj))
    if deleted:
        if entry is not None:
            entry[1].pop(name, None)
        return
    found, value = _instance_value(interp, obj, name)
    if found:
        _remember(interp, obj, name, value)


def remember_copies(interp, copies: dict) -> None:
    """After ``copy.copy``/``copy.deepcopy`` (``copies``: deepcopy's memo, ``{id(original):
    copy}``): the names the script set on an original are the script's on its copy too, where
    the copy holds the original's value or its copy."""
    for key, (ref, names) in list(interp._own_attrs.items()):
        original = ref()
        duplicate = copies.get(key)
        if original is None or duplicate is None or duplicate is original:
            continue
        for name, value in list(names.items()):
            found, current = _instance_value(interp, duplicate, name)
            if found and current is copies.get(id(value), value):
                _remember(interp, duplicate, name, current)


def _remember(interp, obj, name: str, value) -> None:
    table = interp._own_attrs
    key = id(obj)
    entry = table.get(key)
    if entry is None or entry[0]() is not obj:
        # the entry leaves with its object (before its id can be reused)
        entry = table[key] = (weakref.ref(obj, lambda _, k=key: table.pop(k, None)), {})
    entry[1][name] = value  # held, not its id: a later object at the same address is not it


def _set_by_script(interp, obj, name: str, value) -> bool:
    entry = interp._own_attrs.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return False
    names = entry[1]
    return name in names and names[name] is value


_STATE = "state"
_STORE = "store"


def _instance_value(interp, obj, name: str):
    """(where, value): ``obj`` holds ``name`` itself in its ``__dict__`` (``_STATE``), or in an
    nn.Module's parameters, buffers or children (``_STORE``: ``self._fc = nn.Linear(...)``,
    ``register_buffer('_mask', m)``); else (None, None). Never runs a property."""
    try:
        state = vars(obj)
    except TypeError:
        return None, None
    if name in state:
        return _STATE, state[name]
    if interp._is_module(type(obj)):
        for store in MODULE_STORE_ATTRS:
            members = state.get(store)
            if isinstance(members, dict) and name in members:
                return _STORE, members[name]
    return None, None


def _engine_state_name(interp, cls, name: str) -> bool:
    return interp._is_module(cls) and name in _module_state_names()


@functools.cache
def _module_state_names() -> frozenset:
    """What ``nn.Module.__init__`` puts in every module (its stores and hooks), which a script
    class must not shadow, even before it calls ``super().__init__()``."""
    return frozenset(vars(sys.modules["engine.nn"].Module()))


def _defined_by_script(interp, cls, name: str) -> bool:
    return cls is not None and cls in interp._script_classes and (
        name in interp._class_own_names.get(cls, ()))


def plain_script_object(interp, obj) -> bool:
    """An object (or class) of the script's classes with no engine base: its ``_`` names are the
    script's alone."""
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
    if name == MODULE_VERSION_ATTR:
        return "'__version__' is readable on torch, torch.version and numpy"
    return None
