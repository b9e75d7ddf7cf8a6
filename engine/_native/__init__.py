"""The optional compiled kernels: ``fill`` (fill.c, PyTorch's normal fill and uniforms in C), built
by setuptools at install time when a C compiler is there.

``kernel()`` is the module, or None when it did not build or ``GRADSTEP_NATIVE=0`` asks for the
numpy code (engine/random.py computes the same numbers either way; the variable is read at each
call, so tests can run both paths in one process).
"""

from __future__ import annotations

import os

try:
    from . import fill as _fill
except ImportError:  # no compiler at install time, or a source checkout never built
    _fill = None


def kernel():
    """The compiled ``fill`` module, or None (not built, or ``GRADSTEP_NATIVE=0``)."""
    if _fill is None or os.environ.get("GRADSTEP_NATIVE", "") == "0":
        return None
    return _fill


def built() -> bool:
    """Whether the compiled module is importable here (whatever ``GRADSTEP_NATIVE`` says)."""
    return _fill is not None
