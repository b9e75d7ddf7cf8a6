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
        Bytes of tensor memory the script holds at once (tensors of 16384 elements and more are
        counted); the process's resident memory may not grow by more than this plus 128 MiB
        during the run either (checked on Linux), which covers lists, classes and the rest.
    max_recursion : int
        Depth of nested calls of the script's own functions.
    max_string : int
        Characters of a string (also bounds the source length and format widths).
    max_list : int
        Elements of a list, tuple, dict or set (also of anything printed or compared).
    max_int_bits : int
        Bits of an integer, checked before ``**``, ``*`` and ``<<`` compute it.
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
