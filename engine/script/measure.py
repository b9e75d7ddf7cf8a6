"""How much a value would print, before it is printed: the one measured path of every ``str()``,
``repr()``, ``format()``, f-string, ``%``-format and ``print`` the interpreter performs.

``a = [0]; a = [a, a]`` repeated 100 times is a few hundred bytes in memory but prints 2**100
items; a tensor printed in full with ``set_printoptions(profile='full')`` is megabytes of text
formatted in Python. ``check_printed_size`` walks a value once (shared sub-structures are visited
once and counted as often as they occur, with a memo, so the walk stays linear in the value's size
in memory), adds up a lower bound of the characters it would print and refuses, with
``ScriptError(kind="limit")``, past ``Limits.max_list`` elements or ``Limits.max_string``
characters. ``measured_text`` then converts and checks the real length.
"""

from __future__ import annotations

import numpy as np

from .errors import limit
from .guards import CONTAINERS as _CONTAINERS  # list, tuple, set, dict, dict views, deque
from .limits import Limits

_MAX_DEPTH = 200


def _tensor_type():
    from ..tensor import Tensor

    return Tensor


def shown_elements(shape, threshold: float, edgeitems: int) -> int:
    """Elements a printout of an array of ``shape`` shows (all, or the summarized corners)."""
    n = 1
    for d in shape:
        n *= d
    if n <= threshold:
        return n
    shown = 1
    for d in shape:
        shown *= min(d, 2 * edgeitems)
    return shown


def array_chars(value) -> int:
    """A lower bound of the characters a tensor or numpy array prints (3 per shown element:
    a digit, a separator and a space)."""
    if isinstance(value, np.ndarray):
        opts = np.get_printoptions()
        return 3 * shown_elements(value.shape, opts["threshold"], opts["edgeitems"])
    from .. import tensor_format

    return 3 * shown_elements(value._data.shape, tensor_format.THRESHOLD, tensor_format.EDGEITEMS)


def check_printed_size(obj, limits: Limits) -> int:
    """Refuse ``obj`` when printing it would write more than ``max_string`` characters or visit
    more than ``max_list`` elements (a lower bound, measured before anything is printed); returns
    that lower bound of its characters."""
    t = type(obj)
    if t is str:
        return len(obj)
    if t is int:
        return max(1, obj.bit_length() * 3 // 10)
    tensor = _tensor_type()
    if isinstance(obj, (BaseException, slice)):  # print(e), str(a[x:y]): their parts are printed
        obj = _parts(obj)
    elif not isinstance(obj, (*_CONTAINERS, tensor, np.ndarray)):
        return 1
    max_items = limits.max_list
    max_chars = limits.max_string
    memo: dict[int, tuple[int, int]] = {}

    def leaf(o) -> int:
        lt = type(o)
        if lt is str or lt is bytes:
            return len(o) + 2
        if lt is int:
            return max(1, o.bit_length() * 3 // 10)
        if isinstance(o, (tensor, np.ndarray)):
            return array_chars(o)
        return 1

    def walk(o, depth: int) -> tuple[int, int]:
        if isinstance(o, (BaseException, slice)):
            o = _parts(o)
        elif not isinstance(o, _CONTAINERS):
            return 1, leaf(o)
        key = id(o)
        known = memo.get(key)
        if known is not None:
            return known
        if depth > _MAX_DEPTH:
            raise limit("data nested too deeply to print")
        memo[key] = (1, 5)  # a container holding itself prints as [...]
        items, chars = 1, 2
        for x in (o.items() if isinstance(o, dict) else o):
            i, c = walk(x, depth + 1)
            items += i
            chars += c + 2
            if items > max_items:
                raise limit(f"data too large to print: more than {max_items} elements")
            if chars > max_chars:
                raise limit(f"data too large to print: more than {max_chars} characters")
        memo[key] = (items, chars)
        return items, chars

    _, chars = walk(obj, 0)
    if chars > max_chars:
        raise limit(f"data too large to print: more than {max_chars} characters")
    return chars


def _parts(obj) -> tuple:
    if isinstance(obj, slice):
        return (obj.start, obj.stop, obj.step)
    return tuple(obj.args)


def exception_text(e: BaseException, limits: Limits) -> str:
    """``str(e)`` for an error message, measured first (``raise ValueError(a)`` with a shared
    ``a``): a message too large to print is replaced by a note."""
    try:
        check_printed_size(e, limits)
        text = str(e)
    except Exception:
        return "(the message is too large to show)"
    if len(text) > limits.max_string:
        return text[:limits.max_string] + " ..."
    return text


def measured_text(convert, value, limits: Limits, spec: str | None = None) -> str:
    """``convert(value)`` (``str``, ``repr``, ``ascii``) or ``format(value, spec)``, measured
    before and checked after."""
    check_printed_size(value, limits)
    text = convert(value) if spec is None else format(value, spec)
    if len(text) > limits.max_string:
        raise limit(f"string too long: {len(text)} elements (the limit is {limits.max_string})")
    return text
