"""What a script may touch: attribute policies per kind of object, and screening of values.

Two rules carry most of the weight: no name starting with ``_`` is ever written, and only a named
few are read, each on the objects where it is safe (``READABLE_UNDERSCORE_ATTRS``; that closes every
dunder walk), and every value coming back from outside the interpreter passes ``screen``,
which refuses modules, frames, code and interpreter objects, and hides real generators behind a
wrapper without attributes. The rest are allow-lists for the few kinds of objects whose public
attributes reach files or raw memory (numpy arrays: ``tofile``, ``ctypes``) or shared engine state
(a node's ``op`` is a row of the global op table).
"""

from __future__ import annotations

import builtins
import types

import numpy as np

from .errors import forbidden

# Dunder methods a script class may define: the data model a Dataset, a Module or a small helper
# class needs. Whoever calls them (the interpreter, engine code such as DataLoader, Python's own
# len()/iter()/repr()/sorted()) runs them in the interpreter, with its limits and stepping (a
# ScriptFunction runs its body there, also when called from C code). Hooks that would run script
# code where nothing expects it stay forbidden: __del__ (at collection), __getattribute__ and
# __getattr__ (every attribute read of the interpreter), __init_subclass__, __set_name__,
# __class_getitem__, __reduce__ and friends (copy and pickle internals), and __index__ (C code
# sizes buffers with it: [0] * obj).
_ARITHMETIC = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
               "xor", "lshift", "rshift", "divmod")
CLASS_DUNDERS = frozenset({
    "__init__", "__call__", "__len__", "__getitem__", "__setitem__", "__delitem__", "__iter__",
    "__next__", "__reversed__", "__contains__", "__repr__", "__str__", "__format__", "__eq__",
    "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__enter__",
    "__exit__", "__neg__", "__pos__", "__abs__", "__invert__", "__int__", "__float__",
    "__round__", "__post_init__",
    *(f"__{op}__" for op in _ARITHMETIC), *(f"__r{op}__" for op in _ARITHMETIC),
    *(f"__i{op}__" for op in _ARITHMETIC if op != "divmod"),
})

# Reading these names is allowed although they start with an underscore.
READABLE_DUNDER_NAMES = frozenset({"__name__", "__version__"})  # the latter once imported

# Underscore names a script may import by name, {module: names}: the few that are public by
# convention and that tutorials import. ``_LRScheduler`` is LRScheduler's old name (PyTorch keeps
# it as an alias, and many tutorials subclass it); ``__version__`` is the release
# (``from torch import __version__``). Every other import of a name starting with ``_`` stays
# refused (validate.py).
IMPORTABLE_UNDERSCORE_NAMES = {
    "torch": frozenset({"__version__"}),
    "torch.optim.lr_scheduler": frozenset({"_LRScheduler"}),
}

# Underscore attributes a script may read (never assign or delete); ``underscore.py`` checks each
# on the object when it runs. Text: these, when they are a string (``__doc__`` also None).
READABLE_DUNDER_ATTRS = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})

# ``x.__class__``: what ``type(x)`` gives, screened as it is.
CLASS_ATTR = "__class__"

# The stores of an nn.Module (d2l's MySequential fills ``self._modules``), on Module instances.
MODULE_STORE_ATTRS = frozenset({"_modules", "_parameters", "_buffers"})

# ``t._version`` of a tensor (an int, as PyTorch's); ``grad_fn._saved_self`` & co. of a node.
TENSOR_VERSION_ATTR = "_version"
NODE_SAVED_PREFIX = "_saved_"

# The data model's methods a script may read (``ds.__getitem__(0)``, ``t.__add__(u)``): what a
# script class may define, less ``__init__`` (its own rule), ``__post_init__`` and two whose
# builtin forms do unbounded work outside the measured paths (``(1).__format__('>9999999999')``,
# ``(10).__round__(-10**8)``). The object's attribute rule and the screening then apply as to a
# public attribute: a builtin's slot wrapper (``[].__mul__``) is refused by the screening.
DATA_MODEL_METHODS = CLASS_DUNDERS - {"__init__", "__post_init__", "__format__", "__round__"}

# ``torch.__version__``, ``torch.version.__version__``: of the engine's modules, a string.
MODULE_VERSION_ATTR = "__version__"

# The public API of a namedtuple (of the script's collections.namedtuple classes only), although
# it starts with an underscore.
NAMEDTUPLE_ATTRS = frozenset({"_fields", "_field_defaults", "_asdict", "_replace", "_make"})

# Every underscore attribute the checker lets through to the run-time checks (``__init__``: of
# ``super()``, the script's classes and nn.Module classes only).
READABLE_UNDERSCORE_ATTRS = (READABLE_DUNDER_ATTRS | MODULE_STORE_ATTRS | DATA_MODEL_METHODS
                             | NAMEDTUPLE_ATTRS | {CLASS_ATTR, TENSOR_VERSION_ATTR, "__init__",
                                                   MODULE_VERSION_ATTR})


def may_read_underscore(name: str) -> bool:
    """Whether the checker lets ``obj.<name>`` (a name starting with ``_``) through to the run:
    the names above, and every single-underscore name (``self._init_weights``: the script's own
    names are allowed on the script's own objects only, which the run decides)."""
    return name in READABLE_UNDERSCORE_ATTRS or not name.startswith("__")


def is_namedtuple_class(t) -> bool:
    """A class made by the script's ``collections.namedtuple`` (or ``typing.NamedTuple``)."""
    return (isinstance(t, type) and issubclass(t, tuple) and t.__module__ == "__main__"
            and "_fields" in t.__dict__)

# Values whose attributes lead to interpreter internals: never handed to a script.
DENIED_TYPES = (
    types.ModuleType, types.FrameType, types.CodeType, types.TracebackType, types.CoroutineType,
    types.AsyncGeneratorType, types.CellType, types.MappingProxyType, types.GetSetDescriptorType,
    types.MemberDescriptorType, types.WrapperDescriptorType, types.MethodWrapperType,
    types.MethodDescriptorType, types.ClassMethodDescriptorType, memoryview,
)
try:  # greenlets expose their frame (gr_frame)
    from greenlet import greenlet as _greenlet

    DENIED_TYPES = DENIED_TYPES + (_greenlet,)
except ImportError:  # pragma: no cover - greenlet is a declared dependency
    pass

# Classes a script may hold (through type(x)) but not instantiate.
DENIED_CONSTRUCTORS = frozenset({
    type, types.FunctionType, types.MethodType, types.GeneratorType, types.SimpleNamespace,
    np.ndarray, np.memmap, np.recarray, np.flatiter, memoryview,
})

# Python's own builtins that are never callable from a script, even if one leaked through.
_DENIED_BUILTINS = frozenset(
    id(v) for k, v in vars(builtins).items()
    if k not in {"int", "float", "bool", "str", "list", "tuple", "dict", "set", "frozenset",
                 "complex", "range", "slice", "abs", "min", "max", "sum", "round", "len", "repr",
                 "isinstance", "issubclass", "enumerate", "zip", "map", "filter", "sorted",
                 "reversed", "any",
                 "all", "pow", "divmod", "iter", "next", "True", "False", "None", "Ellipsis",
                 "NotImplemented", "chr", "ord", "hash", "callable", "bytes"}
    and not (isinstance(v, type) and issubclass(v, BaseException))
) | {id(type)}

# Module-level names of the engine a script never gets, whatever the engine grows: file access and
# the interpreter itself.
DENIED_MODULE_NAMES = frozenset({
    "save", "load", "from_file", "hub", "script", "session", "files", "graph", "events", "utils",
    "jit", "compile", "onnx", "package", "multiprocessing", "distributed", "ops", "library",
})

# Attributes of builtin values that produce unbounded output from small input, or that rebuild
# objects from raw bytes; none appear in tutorials.
DENIED_VALUE_ATTRS = frozenset({"to_bytes", "from_bytes", "format_map", "expandtabs", "maketrans",
                                "fromhex", "translate"})

# numpy: only these attributes of arrays, scalars and dtypes (no tofile/dump/ctypes/data/base).
NUMPY_ATTRS = frozenset({
    "shape", "dtype", "ndim", "size", "T", "itemsize", "nbytes", "real", "imag", "astype", "copy",
    "reshape", "flatten", "ravel", "transpose", "squeeze", "sum", "mean", "std", "var", "max",
    "min", "argmax", "argmin", "prod", "cumsum", "round", "clip", "dot", "tolist", "item", "fill",
    "all", "any", "nonzero", "sort", "argsort", "swapaxes", "conjugate", "name", "kind", "char",
    "is_integer",
})

# An autograd node exposes what PyTorch's nodes expose, not the engine's op-table row.
NODE_ATTRS = frozenset({"name", "next_functions", "metadata", "register_hook", "register_prehook",
                        "requires_grad", "variable"})

# What ``ctx`` of a script's own ``torch.autograd.Function`` offers (it is that call's node, as in
# PyTorch); the script may also set and read its own attributes on it (``ctx.constant = 2``).
CTX_ATTRS = frozenset({"save_for_backward", "saved_tensors", "needs_input_grad", "mark_dirty",
                       "mark_non_differentiable", "set_materialize_grads"})

# Module-level flags a script may set (``torch.backends.cudnn.deterministic = True``, the
# reproducibility lines of tutorials): {(module, name): PyTorch's setter's name}. The value is a
# bool, as PyTorch's setters insist, and lives in the run (``Interpreter._module_flags``), never
# in the engine's module, which every run shares.
SETTABLE_MODULE_FLAGS = {
    ("torch.backends.cudnn", "enabled"): "set_enabled_cudnn",
    ("torch.backends.cudnn", "benchmark"): "set_benchmark_cudnn",
    ("torch.backends.cudnn", "deterministic"): "set_deterministic_cudnn",
    ("torch.backends.cudnn", "allow_tf32"): "set_allow_tf32_cudnn",
}

# Tensor attributes a script may assign (``w.grad = None``, ``x.requires_grad = True``).
TENSOR_SETTABLE = frozenset({"requires_grad", "grad", "data"})


def is_engine_module_name(mod) -> bool:
    """Modules of the engine proper (not the interpreter, the session, files, graph or events)."""
    if not isinstance(mod, str) or not (mod == "engine" or mod.startswith("engine.")):
        return False
    return not mod.startswith(("engine.script", "engine.session", "engine.files", "engine.graph",
                               "engine.events"))


def is_engine_type(t: type) -> bool:
    """Classes defined by the engine proper."""
    return is_engine_module_name(getattr(t, "__module__", None))


def is_internal_type(t: type) -> bool:
    """Classes whose objects are internals, not values a script works with: the interpreter's own
    (but for the script-facing ones, see ``SCRIPT_FACING``), the session's, files', the graph's and
    events' (the engine outside the engine proper), and numpy's private modules' (``a.ctypes``,
    ``a.flags``). Exceptions are not internals."""
    mod = getattr(t, "__module__", None)
    if not isinstance(mod, str) or issubclass(t, BaseException):
        return False  # an exception is the script's to catch, whoever raised it
    if mod.startswith("engine."):
        return not is_engine_module_name(mod) and t.__qualname__ not in SCRIPT_FACING.get(mod, ())
    return mod.startswith("numpy.") and any(part.startswith("_") for part in mod.split("."))


# The interpreter's classes whose objects a script holds: {module: class names}.
SCRIPT_FACING = {
    "engine.script.objects": ("ScriptFunction", "SuperProxy", "SafeIterator", "Builtin"),
    "engine.script.modules": ("ModuleProxy",),
    "engine.script.generators": ("ScriptGenerator",),
    "engine.script.numpy_rng": ("Generator",),
    "engine.script.stdlib.random_": ("ScriptRandom",),
    "engine.script.stdlib.functools_": ("Partial", "LruCache"),
    "engine.script.stdlib.warnings_": ("CatchWarnings",),
    "engine.script.stdlib.argparse_": ("ArgumentParser", "_Group"),
}

# The interpreter's own context managers a ``with`` statement may enter (besides the engine's and
# the script's classes): {module: class names}.
SCRIPT_CONTEXTS = {"engine.script.stdlib.warnings_": ("CatchWarnings",)}


def check_callable(value, node=None) -> None:
    """Refuse Python's dangerous builtins (``open``, ``eval``, ``type``...) if one is reached, and
    every ``__subclasses__`` (a new bound method at each read: it cannot be found by identity)."""
    if (id(value) in _DENIED_BUILTINS and (isinstance(value, types.BuiltinFunctionType)
                                           or value is type)) or (
            isinstance(value, types.BuiltinFunctionType)
            and getattr(value, "__name__", None) == "__subclasses__"):
        raise forbidden(f"'{getattr(value, '__name__', 'this function')}' is not available", node)
