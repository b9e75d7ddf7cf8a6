"""The optional compiled kernels, built by setuptools at install time when a C compiler is there:
``fill`` (fill.c, PyTorch's normal fill and uniforms), ``sums`` (sums.c, one call of torch's
sum loop on a contiguous float array) and ``objects`` (objects.c, a new tensor, version counter or
graph node made in one call as a copy of a prototype).

``kernel()`` / ``sums()`` / ``objects()`` are the modules, or None when they did not build or
``GRADSTEP_NATIVE=0`` asks for the Python code (engine/random.py and engine/ops/reduce_order.py
compute the same numbers either way, engine/tensor.py and engine/ops/dispatch.py make the same
objects; the variable is read at each call, so tests can run both paths in one process).
"""

from __future__ import annotations

import os

try:
    from . import fill as _fill
except ImportError:  # no compiler at install time, or a source checkout never built
    _fill = None
try:
    from . import sums as _sums
except ImportError:
    _sums = None
try:
    from . import objects as _objects
except ImportError:
    _objects = None


def kernel():
    """The compiled ``fill`` module, or None (not built, or ``GRADSTEP_NATIVE=0``)."""
    if _fill is None or os.environ.get("GRADSTEP_NATIVE", "") == "0":
        return None
    return _fill


def sums():
    """The compiled ``sums`` module, or None (not built, or ``GRADSTEP_NATIVE=0``)."""
    if _sums is None or os.environ.get("GRADSTEP_NATIVE", "") == "0":
        return None
    return _sums


def objects():
    """The compiled ``objects`` module, or None (not built, or ``GRADSTEP_NATIVE=0``)."""
    if _objects is None or os.environ.get("GRADSTEP_NATIVE", "") == "0":
        return None
    return _objects


def built() -> bool:
    """Whether the compiled module is importable here (whatever ``GRADSTEP_NATIVE`` says)."""
    return _fill is not None
