"""``Limits``: how much a script may do before it is ended with ``ScriptError(kind="limit")``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits of one script run.

    Attributes
    ----------
    max_statements : int
        Statements executed (comprehension and iterator steps count too), so ``while True:`` ends.
    max_tensor_elements : int
        Elements of any one tensor or numpy array; creation sizes are checked before allocating.
    max_total_bytes : int
        Bytes of tensor and numpy array memory the script holds at once (those of 16384 elements
        and more are counted, each memory block once); the process's resident memory may not
        grow by more than this plus 128 MiB during the run either (checked on Linux), which
        covers lists, classes and the rest.
    max_recursion : int
        Depth of nested calls of the script's own functions.
    max_string : int
        Characters of a string (also bounds the source length, format widths and what ``str()``,
        ``repr()``, f-strings and ``%`` would write, measured before they write it).
    max_list : int
        Elements of a list, tuple, dict or set (also of anything printed, compared, hashed or
        built by ``tolist()``; shared sub-structures count as often as they occur).
    max_int_bits : int
        Bits of an integer, checked before ``**``, ``*``, ``<<``, ``pow()``, ``round()`` and
        ``int(text, base)`` compute it (and on the int results of every other call).
    max_output : int
        Characters ``print`` may write in total.
    """

    max_statements: int = 5_000_000
    max_tensor_elements: int = 10_000_000
    max_total_bytes: int = 1 << 30
    max_recursion: int = 100
    max_string: int = 1_000_000
    max_list: int = 1_000_000
    max_int_bits: int = 10_000
    max_output: int = 10_000_000


def limit_note(name: str, limits: Limits) -> str:
    """``the limit is 1000000: max_list, which a .gstep file's settings.limits may set up to
    1000000``: what a limit error says about the limit it hit and where it is set."""
    value = getattr(limits, name)
    most = getattr(Limits(), name)
    return (f"the limit is {value}: {name}, which a .gstep file's settings.limits may set "
            f"up to {most}")
