"""``nn.utils.skip_init``: a module built without initialising its parameters."""

from __future__ import annotations

import inspect

from ... import random as _random
from ..module import Module


def skip_init(module_cls, *args, **kwargs):
    """Build ``module_cls(*args, **kwargs)`` with its parameters and buffers left uninitialised.

    PyTorch builds it on the meta device and then allocates empty memory (``to_empty``), so its
    constructor draws nothing from the random stream and the values are whatever memory held.
    The engine builds it normally, puts the random stream back as it was, and zeroes the values
    (a definite stand-in for "uninitialised": a script must not rely on either).
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.pop("device", None)  # the engine has one device
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    for t in (*module.parameters(), *module.buffers()):
        t._data[...] = 0
    return module
