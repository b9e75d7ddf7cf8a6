"""The script's own callables and helper objects: functions, ``super()``, guarded iterators.

They keep everything in underscore-named slots, so a script (which can read no such name) sees no
attribute on them at all.
"""

from __future__ import annotations

import ast
from types import MethodType

from .errors import ScriptError


class Signature:
    """A function's parameters, prepared once from its ``ast.arguments``."""

    __slots__ = ("positional", "posonly", "defaults", "vararg", "kwonly", "kw_defaults", "kwarg",
                 "simple")

    def __init__(self, args: ast.arguments, defaults: tuple, kw_defaults: dict) -> None:
        self.posonly = len(args.posonlyargs)
        self.positional = tuple(a.arg for a in args.posonlyargs + args.args)
        self.defaults = defaults  # aligned with the last positional parameters
        self.vararg = args.vararg.arg if args.vararg else None
        self.kwonly = tuple(a.arg for a in args.kwonlyargs)
        self.kw_defaults = kw_defaults
        self.kwarg = args.kwarg.arg if args.kwarg else None
        self.simple = not (self.vararg or self.kwonly or self.kwarg)

    def bind(self, name: str, args: tuple, kwargs: dict) -> dict:
        """The frame's initial locals; raises TypeError with Python's messages."""
        positional = self.positional
        n = len(positional)
        if self.simple and not kwargs and len(args) == n:
            return dict(zip(positional, args))
        loc = {}
        if len(args) > n:
            if self.vararg is None:
                raise TypeError(
                    f"{name}() takes {n} positional argument{'s' if n != 1 else ''} but "
                    f"{len(args)} were given"
                )
            loc[self.vararg] = tuple(args[n:])
        elif self.vararg is not None:
            loc[self.vararg] = ()
        for pname, value in zip(positional, args):
            loc[pname] = value
        extra = {}
        for key, value in kwargs.items():
            if key in positional[self.posonly:] or key in self.kwonly:
                if key in loc:
                    raise TypeError(f"{name}() got multiple values for argument '{key}'")
                loc[key] = value
            elif self.kwarg is not None:
                extra[key] = value
            else:
                raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        first_default = n - len(self.defaults)
        missing = []
        for i, pname in enumerate(positional):
            if pname not in loc:
                if i >= first_default:
                    loc[pname] = self.defaults[i - first_default]
                else:
                    missing.append(pname)
        if missing:
            raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                            f"{'s' if len(missing) > 1 else ''}: {_names(missing)}")
        missing = []
        for pname in self.kwonly:
            if pname not in loc:
                if pname in self.kw_defaults:
                    loc[pname] = self.kw_defaults[pname]
                else:
                    missing.append(pname)
        if missing:
            raise TypeError(f"{name}() missing {len(missing)} required keyword-only argument"
                            f"{'s' if len(missing) > 1 else ''}: {_names(missing)}")
        if self.kwarg is not None:
            loc[self.kwarg] = extra
        return loc


def _names(names) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


class ScriptFunction:
    """A ``def`` or ``lambda`` of the script. Calling it (from the script or from engine code, as
    ``Module.__call__`` calls ``forward``) runs its body in the interpreter."""

    __slots__ = ("_interp", "_name", "_signature", "_body", "_expr", "_closure", "_owner",
                 "_node", "_generator", "__weakref__")

    def __init__(self, interp, name, signature, body, expr, closure, node) -> None:
        self._interp = interp
        self._name = name
        self._signature = signature
        self._body = body  # statements, for def
        self._expr = expr  # the expression, for lambda
        self._closure = closure  # enclosing function scopes, innermost first
        self._owner = None  # the class whose body defined it (for super())
        self._node = node
        self._generator = getattr(node, "gs_generator", False)  # a def whose body yields

    def __call__(self, *args, **kwargs):
        # Called by engine or Python code (Module.__call__, sorted(key=...), the sequence
        # protocol): a runtime error leaves as the script's own exception, so that the caller sees
        # IndexError, StopIteration... as Python would; the interpreter turns it back into the
        # original ScriptError (with its line) when it reaches the script again.
        interp = self._interp
        try:
            args, kwargs = screened_arguments(interp._screen, args, kwargs)
            return interp._invoke(self, tuple(args), kwargs)
        except ScriptError as err:
            exc = script_exception(err)
            if exc is err:
                raise
            raise exc from None

    def __get__(self, obj, cls=None):
        return self if obj is None else MethodType(self, obj)

    @property
    def __name__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<function {self._name}>"

    # functions are atomic for copy and deepcopy, as Python's (never a copy of the interpreter)
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def screened_arguments(screen, args, kwargs) -> tuple[list, dict]:
    """What engine or C code passes to the script's code is handed to the script: screened as any
    value coming in."""
    args = [screen(a) for a in args]
    if kwargs:
        kwargs = {k: screen(v) for k, v in kwargs.items()}
    return args, kwargs


def script_exception(err: ScriptError) -> BaseException:
    """What engine or C code that called the script's code sees of ``err``: a runtime error as the
    script's own exception (IndexError, StopIteration...), which remembers ``err`` so that the
    interpreter restores it (with its line) when it reaches the script again; anything else (a
    limit, a stop) as it is."""
    cause = err.__cause__
    if err.kind != "runtime" or not isinstance(cause, Exception):
        return err
    cause._gs_script_error = err
    return cause


class SuperProxy:
    """What ``super()`` gives: attribute reads resolve past ``owner`` in ``obj``'s class order."""

    __slots__ = ("_owner", "_obj")

    def __init__(self, owner, obj) -> None:
        self._owner = owner
        self._obj = obj

    def __repr__(self) -> str:
        return f"<super: {self._owner.__name__}>"

    def __copy__(self):
        raise TypeError("cannot pickle 'super' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'super' object")


class SafeIterator:
    """An iterator without attributes (a real generator has ``gi_frame``). Every item counts as a
    step towards the statement limit and checks for a stop request."""

    __slots__ = ("_it", "_tick", "_screen")

    def __init__(self, it, tick, screen) -> None:
        self._it = it
        self._tick = tick
        self._screen = screen

    def __iter__(self):
        return self

    def __next__(self):
        self._tick()
        return self._screen(next(self._it))

    def __repr__(self) -> str:
        return "<iterator>"

    def __copy__(self):
        raise TypeError("cannot pickle 'iterator' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'iterator' object")


class Builtin:
    """Marks builtins the interpreter implements itself (``super``, ``print``...)."""

    __slots__ = ("_name", "_fn")

    def __init__(self, name: str, fn) -> None:
        self._name = name
        self._fn = fn

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in function {self._name}>"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self
