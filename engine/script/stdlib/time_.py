"""``import time``: clock reads and formatting. ``time.sleep(s)`` checks its argument and returns
at once: a script must never freeze the debugger, and stepping already lets one watch it slowly."""

from __future__ import annotations

import re
import time

from ..errors import limit

MISSING_NOTE = "only time's clocks, sleep (which returns at once) and formatting are"
_WIDTH = re.compile(r"%[-_0^#]*[0-9]")


def build(interp) -> dict:
    names = {name: getattr(time, name) for name in (
        "time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
        "process_time", "process_time_ns", "localtime", "gmtime", "asctime", "ctime", "mktime")}
    names = {name: _wrap(fn) for name, fn in names.items()}

    def sleep(secs, /):
        """Returns at once (gradstep scripts do not wait); the argument is checked as Python's."""
        if not isinstance(secs, (int, float)):
            raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as an integer")
        if secs < 0:
            raise ValueError("sleep length must be non-negative")

    def strftime(format, t=None, /):
        if isinstance(format, str) and _WIDTH.search(format):
            raise limit("time.strftime: field widths (%10Y) are not available")
        return time.strftime(format) if t is None else time.strftime(format, t)

    names.update(sleep=sleep, strftime=strftime, struct_time=time.struct_time)
    return names


def _wrap(fn):
    def clock(*args):
        return fn(*args)

    clock.__name__ = fn.__name__
    return clock
