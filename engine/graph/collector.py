"""Pausing Python's cyclic garbage collector while a graph or a layout is built.

Both allocate tens of thousands of small dicts, tuples and lists and create no reference cycles.
Every allocation burst otherwise triggers collections, and the full ones walk every object in the
app (see ``engine/gc_policy.py``), which can cost more than the work itself.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """Disable the cyclic collector for the block; restore it as it was (threads may nest)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
