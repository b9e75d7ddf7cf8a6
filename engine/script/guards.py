"""Size checks made *before* a computation allocates: integers, strings, lists, tensor shapes.

Each check raises ``ScriptError(kind="limit")``; the caller then never runs the operation, so an
exponent bomb or ``'a' * 10**9`` costs nothing.
"""

from __future__ import annotations

import collections
import math
import operator
import re
import string

from .errors import forbidden, limit
from .limits import Limits, limit_note

_SEQUENCES = (str, bytes, bytearray, list, tuple)
_DIGITS = re.compile(r"\d+")


def _seq_cap(seq, limits: Limits) -> int:
    return limits.max_string if isinstance(seq, (str, bytes, bytearray)) else limits.max_list


def check_int_bits(bits: int, limits: Limits) -> None:
    if bits > limits.max_int_bits:
        raise limit(f"integer too large: about {bits} bits (the limit is {limits.max_int_bits})")


def check_binop(op, a, b, limits: Limits) -> None:
    """Refuse ``a op b`` when its result would exceed the limits (ints, strings, lists)."""
    if op is operator.pow or op is operator.ipow:
        if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
            check_int_bits(a.bit_length() * b, limits)
    elif op is operator.mul or op is operator.imul:
        if isinstance(a, int) and isinstance(b, int):
            check_int_bits(a.bit_length() + b.bit_length(), limits)
        elif isinstance(a, _SEQUENCES) and isinstance(b, int):
            check_length(len(a) * max(b, 0), _seq_cap(a, limits), a)
        elif isinstance(b, _SEQUENCES) and isinstance(a, int):
            check_length(len(b) * max(a, 0), _seq_cap(b, limits), b)
    elif op is operator.lshift or op is operator.ilshift:
        if isinstance(a, int) and isinstance(b, int) and b > 0:
            check_int_bits(a.bit_length() + b, limits)
    elif op is operator.add or op is operator.iadd:
        if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
            check_length(len(a) + len(b), _seq_cap(a, limits), a)
    elif op is operator.mod or op is operator.imod:
        if isinstance(a, (str, bytes)):
            check_percent_format(a, b, limits)


def check_int_text(text, base, limits: Limits) -> None:
    """``int('f' * 50000, 16)``: the bits of the result, from the digits, before converting."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("latin-1")
    if not isinstance(text, str) or isinstance(base, bool) or not isinstance(base, int):
        return
    digits = len(text)
    if digits * 4 <= limits.max_int_bits:
        return  # cheap either way (no base has more than ~5.2 bits a digit)
    body = text.strip().lstrip("+-").replace("_", "")
    if base == 0 and len(body) > 1 and body[0] == "0" and body[1] in "xXoObB":
        base = {"x": 16, "o": 8, "b": 2}[body[1].lower()]
        body = body[2:]
    elif base == 0:
        base = 10
    base = min(max(base, 2), 36)
    check_int_bits(math.ceil(len(body) * math.log2(base)), limits)


def check_modular_pow(base, exp, mod, limits: Limits) -> None:
    """``pow(b, e, m)`` costs about bits(e) * bits(m)**2: refuse operands past ``max_int_bits``
    (they cannot be built by the script's arithmetic, only smuggled in)."""
    for v in (base, exp, mod):
        if isinstance(v, int):
            check_int_bits(v.bit_length(), limits)
    if isinstance(exp, int) and isinstance(mod, int):
        cost = max(exp.bit_length(), 1) * mod.bit_length() ** 2
        if cost > (limits.max_int_bits // 2) ** 3:  # 10_000 bits: about a third of a second
            raise limit(f"pow() with a {exp.bit_length()}-bit exponent and a "
                        f"{mod.bit_length()}-bit modulus would take too long")


def check_round(number, ndigits, limits: Limits) -> None:
    """``round(1, -10**9)`` computes ``10**(10**9)`` first."""
    if isinstance(ndigits, int) and isinstance(number, int) and ndigits < 0:
        check_int_bits(math.ceil(-ndigits * 3.33), limits)


def check_range_search(r: range, probe, limits: Limits) -> None:
    """``0.5 in range(10**12)``, ``r.count(x)``, ``r.index(x)``: O(1) for an int probe, but C
    compares any other probe with every item, in one uninterruptible call."""
    if type(probe) is int or type(probe) is bool:
        return
    try:
        n = len(r)
    except OverflowError:
        n = limits.max_list + 1
    if n > limits.max_list:
        raise limit(f"searching a range of {n} items for a {type(probe).__name__} compares it "
                    f"with every item ({limit_note('max_list', limits)}); an int is found at "
                    "once")


def check_length(n: int, cap: int, sample=None) -> None:
    if n > cap:
        what = "string" if isinstance(sample, (str, bytes, bytearray)) else "list"
        raise limit(f"{what} too long: {n} elements (the limit is {cap})")


def check_percent_format(fmt, args, limits: Limits) -> None:
    """``'%9999999d' % x`` and ``'%*d' % (10**9, x)`` would build huge strings."""
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    for digits in _DIGITS.findall(text):
        if len(digits) > 7 or int(digits) > limits.max_string:
            raise limit("format width or precision too large")
    values = args if isinstance(args, tuple) else (args,)
    if "*" in text:
        for v in values:
            if isinstance(v, int) and abs(v) > limits.max_string:
                raise limit("format width or precision too large")
    from .measure import check_printed_size  # '%s' % (a,) prints a: measured as print does

    total = len(text)
    for v in (values.values() if isinstance(args, dict) else values):
        total += check_printed_size(v, limits)  # '%s' * 50000 % ((s,) * 50000) adds up
        check_length(total, limits.max_string, "")


def check_format_spec(spec: str, limits: Limits) -> None:
    for digits in _DIGITS.findall(spec):
        if len(digits) > 7 or int(digits) > limits.max_string:
            raise limit("format width or precision too large")


def safe_format(template: str, args, kwargs, limits: Limits, formatter) -> str:
    """``str.format`` without attribute or index lookups in the fields (``'{0.__class__}'``).

    ``formatter(value, spec)`` formats one value (the interpreter's ``format``, which checks sizes).
    """
    out = []
    auto = 0
    total = 0
    for literal, field, spec, conversion in string.Formatter().parse(template):
        out.append(literal)
        total += len(literal)
        if field is None:
            continue
        if any(c in field for c in ".[]"):
            raise forbidden("format fields may only name arguments: use an f-string for attributes")
        if field == "":
            key = auto
            auto += 1
        elif field.isdigit():
            key = int(field)
        else:
            key = field
        value = args[key] if isinstance(key, int) else kwargs[key]
        if spec and "{" in spec:
            spec = safe_format(spec, args[auto:], kwargs, limits, formatter)
        if conversion in ("r", "s", "a"):
            from .measure import measured_text  # '{!r}'.format(a): measured as print is

            value = measured_text({"r": repr, "s": str, "a": ascii}[conversion], value, limits)
        piece = formatter(value, spec or "")
        total += len(piece)
        check_length(total, limits.max_string, "")
        out.append(piece)
    return "".join(out)


# -- tensor sizes ----------------------------------------------------------------------------------

def product(dims) -> int | None:
    """The product of a shape, or None when it is not a plain shape (the engine then complains)."""
    n = 1
    for d in dims:
        if isinstance(d, bool):
            return None
        try:
            d = operator.index(d)
        except TypeError:
            return None
        if d < 0:
            return None
        n *= d
    return n


def size_from_args(args, kwargs) -> int | None:
    """Elements requested by ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros(size=(2, 3))``."""
    if "size" in kwargs:
        dims = kwargs["size"]
    elif len(args) == 1 and isinstance(args[0], (tuple, list)):
        dims = args[0]
    else:
        dims = args
    if isinstance(dims, int) and not isinstance(dims, bool):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)):
        return None
    return product(dims)


def check_elements(n, limits: Limits) -> None:
    if n is not None and n > limits.max_tensor_elements:
        raise limit(f"tensor too large: {n} elements (the limit is {limits.max_tensor_elements})")


def arange_length(args, kwargs) -> int | None:
    vals = list(args)
    if "end" in kwargs:
        vals = (vals or [0])[:1] + [kwargs["end"]]
    if "start" in kwargs:
        vals = [kwargs["start"]] + vals
    if "step" in kwargs:
        vals = (vals + [None, None])[:2] + [kwargs["step"]]
    nums = [v for v in vals if v is not None][:3]
    try:
        nums = [float(v) for v in nums]
    except (TypeError, ValueError):
        return None
    if len(nums) == 1:
        start, end, step = 0.0, nums[0], 1.0
    elif len(nums) == 2:
        start, end, step = nums[0], nums[1], 1.0
    elif len(nums) == 3:
        start, end, step = nums
    else:
        return None
    if step == 0 or not all(math.isfinite(v) for v in (start, end, step)):
        return None
    return max(0, math.ceil((end - start) / step))


# -- nested containers -----------------------------------------------------------------------------

# also dict views ({}.items() == ...) and deques: compared, hashed and printed item by item
CONTAINERS = (list, tuple, set, frozenset, dict, type({}.keys()), type({}.values()),
              type({}.items()), collections.deque)
_CONTAINERS = CONTAINERS


def check_expanded_size(obj, limits: Limits) -> None:
    """Refuse structures whose printing, hashing or comparing would visit too many elements.

    ``a = [a, a]`` repeated 100 times is small in memory but printing it writes 2**100 items; the
    count follows shared sub-structures as often as they occur, with a memo so it stays linear.
    """
    if not isinstance(obj, _CONTAINERS):
        return
    cap = limits.max_list
    memo: dict[int, int] = {}

    def walk(o, depth: int) -> int:
        if not isinstance(o, _CONTAINERS):
            return 1
        key = id(o)
        known = memo.get(key)
        if known is not None:
            return known
        if depth > 200:
            raise limit("data nested too deeply")
        memo[key] = 1  # a container holding itself prints as [...]
        n = 1
        items = o.items() if isinstance(o, dict) else o
        for x in items:
            n += walk(x, depth + 1)
            if n > cap:
                raise limit(f"data too large: more than {cap} elements")
        memo[key] = n
        return n

    walk(obj, 0)
