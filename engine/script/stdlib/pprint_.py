"""``import pprint``: ``pprint``, ``pformat`` and ``pp`` (``pprint(model.state_dict())``, as
tutorials show a state dict), measured before they format.

Python's pretty printer writes each element on its own line, indented by its depth: the text is
bounded by what printing the value writes (``measure.check_printed_size``) plus an indentation
and a line break per element, checked against ``max_string`` before anything is formatted.
Nothing but the text is produced: ``stream`` is not taken (print's ``file=`` is not either).
"""

from __future__ import annotations

import pprint

from ..errors import limit
from ..guards import CONTAINERS
from ..measure import check_printed_size

MISSING_NOTE = "only pprint's pprint, pp and pformat are"
_MAX_INDENT = 16
_MAX_WIDTH = 10_000


def _shape(obj) -> tuple[int, int]:
    """(elements, depth) of ``obj``, shared parts counted as often as they occur (memoized)."""
    memo: dict[int, tuple[int, int]] = {}

    def walk(o) -> tuple[int, int]:
        if not isinstance(o, CONTAINERS):
            return 1, 0
        known = memo.get(id(o))
        if known is not None:
            return known
        memo[id(o)] = (1, 0)  # a container holding itself prints as <Recursion ...>
        items, depth = 1, 0
        for x in (o.items() if isinstance(o, dict) else o):
            i, d = walk(x)
            items, depth = items + i, max(depth, d + 1)
        memo[id(o)] = (items, depth)
        return items, depth

    return walk(obj)


def build(interp) -> dict:
    limits = interp.limits

    def pformat(object, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True,
                underscore_numbers=False):
        for name, value, most in (("indent", indent, _MAX_INDENT), ("width", width, _MAX_WIDTH)):
            if type(value) is int and value > most:
                raise limit(f"pprint: {name}={value} is more than {most}")
        chars = check_printed_size(object, limits)  # also refuses what is too large to print
        items, levels = _shape(object)
        if chars + items * (indent * (levels + 1) + 1) > limits.max_string:
            raise limit("pprint: the text would be too long (the limit is "
                        f"{limits.max_string} characters)")
        return pprint.pformat(object, indent=indent, width=width, depth=depth, compact=compact,
                              sort_dicts=sort_dicts, underscore_numbers=underscore_numbers)

    def pprint_(object, stream=None, indent=1, width=80, depth=None, *, compact=False,
                sort_dicts=True, underscore_numbers=False):
        if stream is not None:
            raise TypeError("pprint(stream=...) is not available in gradstep scripts")
        interp._print(pformat(object, indent, width, depth, compact=compact,
                              sort_dicts=sort_dicts, underscore_numbers=underscore_numbers))

    def pp(object, *args, sort_dicts=False, **kwargs):
        pprint_(object, *args, sort_dicts=sort_dicts, **kwargs)

    pprint_.__name__ = "pprint"
    return {"pprint": pprint_, "pformat": pformat, "pp": pp}
