"""``import typing``: the names annotations use. Nothing that evaluates annotations from text
(``get_type_hints``) or reaches frames and modules."""

from __future__ import annotations

import collections
import typing

MISSING_NOTE = "only the typing names annotations use are (no get_type_hints)"

_NAMES = (
    "Any", "Callable", "ClassVar", "Dict", "Final", "FrozenSet", "Generator", "Iterable",
    "Iterator", "List", "Literal", "Mapping", "MutableMapping", "Optional", "Sequence",
    "MutableSequence", "Set", "AbstractSet", "Tuple", "Type", "TypeVar", "Union", "cast",
    "Deque", "DefaultDict", "OrderedDict", "Counter", "Hashable", "Sized", "Container",
    "Collection", "Annotated", "NoReturn", "Generic", "Protocol", "SupportsFloat", "SupportsInt",
    "SupportsIndex", "NewType", "overload", "final", "TYPE_CHECKING",
)


def build(interp) -> dict:
    names = {name: getattr(typing, name) for name in _NAMES if hasattr(typing, name)}
    for name in ("Self", "Never", "LiteralString"):
        if hasattr(typing, name):
            names[name] = getattr(typing, name)

    def NamedTuple(typename, fields=None, /, **kwargs):
        """The functional form ``NamedTuple("P", [("x", int), ("y", int)])``."""
        pairs = list(fields) if fields is not None else list(kwargs.items())
        return collections.namedtuple(typename, [name for name, _ in pairs], module="__main__")

    names["NamedTuple"] = NamedTuple
    return names
