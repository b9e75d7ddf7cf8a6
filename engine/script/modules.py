"""What ``import`` gives a script: read-only views of the engine's modules (and numpy's subset).

A script never holds a real module object: ``torch.creation.builtins.open`` would be one attribute
walk away. A ``ModuleProxy`` exposes only the public functions, classes and constants the engine
defines, plus the whitelisted submodules, and nothing can be assigned or deleted through it.
"""

from __future__ import annotations

import importlib
import importlib.util
import types

from .errors import ScriptError, forbidden
from .safety import DENIED_MODULE_NAMES, is_engine_module_name, is_engine_type

# The module allow-list: script spelling -> engine module. Only these can be imported or reached as
# attributes; a real module object that reaches a script in any other way (an engine function's
# result...) is screened into its proxy here (``proxy_of``) or refused.
ENGINE_MODULES = {
    "torch": "engine",
    "torch.nn": "engine.nn",
    "torch.nn.functional": "engine.nn.functional",
    "torch.nn.init": "engine.nn.init",
    "torch.nn.utils": "engine.nn.utils",
    "torch.nn.utils.rnn": "engine.nn.utils.rnn",
    "torch.optim": "engine.optim",
    "torch.optim.lr_scheduler": "engine.optim.lr_scheduler",
    "torch.autograd": "engine.autograd",
    "torch.autograd.function": "engine.autograd.function",
    "torch.autograd.functional": "engine.autograd.functional",
    "torch.cuda": "engine._cuda",
    "torch.utils": "engine.utils",
    "torch.utils.data": "engine.utils.data",
    "torch.accelerator": "engine.accelerator",
    "torch.backends": "engine.backends",
    "torch.backends.mps": "engine.backends.mps",
    "torch.backends.cudnn": "engine.backends.cudnn",
    "torch.distributions": "engine.distributions",
    "torch.linalg": "engine.linalg",  # reached once the engine has it (ModuleNotFoundError before)
    "torch.version": "engine.version",  # torch.version.cuda: None, as on a CPU build
}
_SCRIPT_NAME = {real: name for name, real in ENGINE_MODULES.items()}

# Engine packages whose every public submodule a script may import under torch's spelling
# (``torch.distributions.categorical`` is ``engine.distributions.categorical``), whatever
# submodules the package grows; a part starting with ``_`` or in DENIED_MODULE_NAMES is not one.
ENGINE_PACKAGES = {"torch.distributions": "engine.distributions"}


def engine_module(name: str) -> str | None:
    """The engine module a script's module name stands for, or None when it is not available."""
    return _translate(name, ENGINE_MODULES, ENGINE_PACKAGES.items())


def _script_name(real: str) -> str | None:
    """The script's spelling of an engine module (``engine_module`` the other way round)."""
    return _translate(real, _SCRIPT_NAME,
                      [(package, script) for script, package in ENGINE_PACKAGES.items()])


def _translate(name: str, table: dict, packages) -> str | None:
    known = table.get(name)
    if known is not None:
        return known
    for source, target in packages:
        rest = _public_rest(name, source)
        if rest is not None:
            return f"{target}.{rest}"
    return None


def _public_rest(name: str, package: str) -> str | None:
    """``a.b`` of ``package.a.b`` when every part is a public module name, else None."""
    if not name.startswith(package + "."):
        return None
    rest = name[len(package) + 1:]
    parts = rest.split(".")
    if all(p.isidentifier() and not p.startswith("_") and p not in DENIED_MODULE_NAMES
           for p in parts):
        return rest
    return None


# Real modules whose C functions (builtins bound to their module: ``len``, ``np.zeros``) a script
# may hold once the allow-lists hand them out; Python's builtins less safety's denied ones. A stdlib
# module added to the allow-list adds its name here.
NATIVE_FUNCTION_MODULES = ("builtins", "numpy", "math")

# The standard modules a script may import (engine/script/stdlib/ builds what each one gives).
STDLIB_MODULES = ("math", "random", "collections", "itertools", "functools", "operator", "copy",
                  "string", "typing", "dataclasses", "enum", "__future__", "time", "timeit",
                  "statistics", "pprint", "warnings", "argparse", "matplotlib",
                  "matplotlib.pyplot")
# matplotlib is gradstep's stand-in (engine/plots/): pyplot's figures go to the Plots panel.
PLOT_MODULES = ("matplotlib", "matplotlib.pyplot")

# Why the modules a tutorial might import stay refused: {module: reason}; the message reads
# "scripts cannot import os: <reason>".
_NO_FILES = ("gradstep runs scripts without files, processes or the network; build the data in the "
             "script (tensors, lists, a torch.utils.data.Dataset) instead")
_INTERNALS = ("it reaches the interpreter's internals (frames, modules, objects' memory), which "
              "scripts never touch")
REFUSED_IMPORTS = {
    **dict.fromkeys((
        "os", "io", "pathlib", "shutil", "glob", "tempfile", "fileinput", "pickle", "shelve",
        "marshal", "dbm", "sqlite3", "csv", "json", "zipfile", "tarfile", "gzip", "bz2", "lzma",
        "subprocess", "multiprocessing", "concurrent", "threading", "_thread", "asyncio",
        "signal", "socket", "ssl", "select", "selectors", "urllib", "http", "ftplib", "smtplib",
        "requests", "webbrowser", "logging", "pty", "tty", "termios", "fcntl", "resource",
        "mmap", "platform", "getpass", "torchvision", "torchaudio", "torchtext",
        "pandas", "PIL", "tqdm", "sklearn", "scipy"), _NO_FILES),
    **dict.fromkeys((
        "sys", "builtins", "inspect", "gc", "types", "importlib", "ctypes", "weakref", "code",
        "codeop", "dis", "ast", "traceback", "runpy", "pdb", "bdb", "site", "sysconfig",
        "linecache", "tokenize", "atexit", "faulthandler", "tracemalloc", "greenlet", "abc",
        "contextlib", "copyreg", "reprlib", "pkgutil", "unittest", "doctest", "engine", "app",
        "_random", "_collections", "_functools", "_operator", "posix", "nt"), _INTERNALS),
}


def import_refusal(name: str) -> str:
    """Why ``import name`` is refused, in words that say what to do."""
    top = name.split(".")[0]
    if top == "matplotlib":
        return (f"scripts cannot import {name}: gradstep's matplotlib is pyplot's plotting "
                "subset (import matplotlib.pyplot as plt; plot, scatter, hist, imshow, "
                "subplots...), drawn in the Plots panel")
    reason = REFUSED_IMPORTS.get(top)
    if reason is not None:
        return f"scripts cannot import {name}: {reason}"
    if top in ("torch", "numpy"):
        return (f"import of '{name}' is not available: gradstep's torch has nn, nn.functional, "
                "nn.init, nn.utils, optim, autograd, utils.data, distributions and cuda; numpy a "
                "subset")
    return (f"import of '{name}' is not available: scripts can import torch (and its nn, optim, "
            "autograd, utils.data, distributions and nn.functional), numpy and the standard "
            "modules "
            + ", ".join(m for m in STDLIB_MODULES if m not in ("__future__", *PLOT_MODULES))
            + "; and matplotlib.pyplot")


def is_native_function_module(module) -> bool:
    name = getattr(module, "__name__", None)
    return isinstance(name, str) and any(name == m or name.startswith(m + ".")
                                         for m in NATIVE_FUNCTION_MODULES)
_MUTABLE = (dict, list, set, bytearray)
_PLAIN = (int, float, complex, str, bool, type(None))


class ModuleProxy:
    """A module as a script sees it: attribute reads only, of an allow-listed set of names."""

    __slots__ = ("_name", "_module", "_exports", "_cache", "_missing")

    def __init__(self, name: str, module=None, exports: dict | None = None,
                 missing: str | None = None) -> None:
        self._name = name
        self._module = module
        self._exports = exports
        self._cache: dict = {}
        self._missing = missing  # what a refusal of a name not in ``exports`` adds

    def _lookup(self, attr: str, node=None):
        try:
            return self._cache[attr]
        except KeyError:
            pass
        value = self._resolve(attr, node)
        self._cache[attr] = value
        return value

    def _resolve(self, attr: str, node):
        if self._exports is not None:
            if attr in self._exports:
                return self._exports[attr]
            note = self._missing or f"only a subset of {self._name} is"
            raise forbidden(f"{self._name}.{attr} is not available in gradstep scripts ({note})",
                            node)
        submodule = f"{self._name}.{attr}"
        if submodule in ENGINE_MODULES:
            return proxy_for(submodule, node)
        if attr in DENIED_MODULE_NAMES:
            raise forbidden(f"{self._name}.{attr} is not available in gradstep scripts", node)
        try:
            value = getattr(self._module, attr)
        except AttributeError:
            err = _no_attribute(self._name, attr, node)
            raise err from err.__cause__
        if isinstance(value, types.ModuleType):
            return proxy_of(value, node,
                            f"{self._name}.{attr} is not available in gradstep scripts")
        if isinstance(value, _MUTABLE):
            # module-level tables are the engine's shared state
            raise forbidden(f"{self._name}.{attr} is not available in gradstep scripts", node)
        if isinstance(value, _PLAIN) or _defined_by_engine(value):
            return value
        raise forbidden(f"{self._name}.{attr} is not available in gradstep scripts", node)

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"

    def __copy__(self):
        raise TypeError("cannot pickle 'module' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'module' object")

    def __dir__(self):
        if self._exports is not None:
            return sorted(self._exports)
        names = set()
        for attr in dir(self._module):
            if attr.startswith("_") or attr in DENIED_MODULE_NAMES:
                continue
            try:
                self._lookup(attr)
            except ScriptError:
                continue
            names.add(attr)
        names.update(n.rsplit(".", 1)[1] for n, real in ENGINE_MODULES.items()
                     if "." in n and n.rsplit(".", 1)[0] == self._name
                     and importlib.util.find_spec(real) is not None)  # torch.linalg: not yet
        return sorted(names)


def _defined_by_engine(value) -> bool:
    if isinstance(value, type):
        return is_engine_type(value)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return is_engine_module_name(getattr(value, "__module__", None))
    return is_engine_type(type(value))


def _no_attribute(module: str, attr: str, node) -> ScriptError:
    err = AttributeError(f"module '{module}' has no attribute '{attr}'")
    out = ScriptError("runtime", f"AttributeError: {err}").at(node)
    out.__cause__ = err
    return out


_proxies: dict[str, ModuleProxy] = {}


def proxy_of(module, node, refusal: str) -> ModuleProxy:
    """The proxy standing in for a real module object, or ScriptError(forbidden, ``refusal``) when
    the module is not one of ``ENGINE_MODULES``."""
    name = _script_name(module.__name__)
    if name is None:
        raise forbidden(refusal, node)
    return proxy_for(name, node)


def proxy_for(name: str, node=None) -> ModuleProxy:
    """The proxy of an engine module by its script name (``torch.nn``), importing it lazily."""
    proxy = _proxies.get(name)
    if proxy is not None:
        return proxy
    real = engine_module(name)
    if real is None:
        raise forbidden(f"import of '{name}' is not available", node)
    try:
        module = importlib.import_module(real)
    except ImportError as e:
        err = ModuleNotFoundError(f"No module named '{name}' (gradstep's engine has no {name} yet)")
        out = ScriptError("runtime", f"ModuleNotFoundError: {err}").at(node)
        out.__cause__ = err
        raise out from e
    proxy = _proxies[name] = ModuleProxy(name, module)
    return proxy
