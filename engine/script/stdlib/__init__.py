"""The standard modules a script may import, each a read-only ``ModuleProxy`` built per run.

One small module here per standard module (``math_``, ``random_``...): its ``build(interp)``
returns the names the script gets. What the script gets is either the real object, when every way
of using it is already bounded by the interpreter (the real ``math.sqrt``, ``collections.deque``,
whose calls go through ``AccessMixin._call_plain`` and its argument checks), or a small wrapper
that checks a size before the work (``math.factorial``, ``random.sample``, ``itertools.product``),
counts each item of an iterator as a step (every ``itertools`` iterator), or calls the script's
functions through the interpreter (``functools.reduce``, ``operator.add``) so that its guards
apply. The proxies are built for each run: ``random`` is the run's own ``random.Random``, seeded
with the session's seed (``engine.initial_seed()``) when the run starts.
"""

from __future__ import annotations

import importlib

from ..modules import ModuleProxy

# script name -> module of this package that builds it
STDLIB = {
    "math": "math_", "random": "random_", "collections": "collections_",
    "itertools": "itertools_", "functools": "functools_", "operator": "operator_",
    "copy": "copy_", "string": "string_", "typing": "typing_", "dataclasses": "dataclasses_",
    "enum": "enum_", "__future__": "future_", "time": "time_", "timeit": "timeit_",
    "statistics": "statistics_", "pprint": "pprint_", "warnings": "warnings_",
    "argparse": "argparse_",
    "matplotlib": "matplotlib_", "matplotlib.pyplot": "pyplot_",  # engine/plots/ draws them
}


def stdlib_module(name: str, interp) -> ModuleProxy:
    """The proxy of standard module ``name`` for the running script of ``interp``."""
    cache = interp._stdlib
    proxy = cache.get(name)
    if proxy is None:
        module = importlib.import_module(f"{__name__}.{STDLIB[name]}")
        proxy = cache[name] = ModuleProxy(
            name, None, module.build(interp),
            missing=getattr(module, "MISSING_NOTE", None))
    return proxy
