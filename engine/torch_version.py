"""``torch.torch_version.TorchVersion``: what ``torch.__version__`` is, a str that compares as a
version with strings and tuples, so that ``"2.13.0+cpu" > "2.2"`` holds although the text sorts
the other way round (``torch.__version__ >= (2, 0)`` too)."""

from __future__ import annotations

import re

from .torch_names import TorchNamedMeta

# N[.N]*[+local]: the spellings a release has (pre-releases such as 2.0a0 compare as text)
_RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)(?:\+([A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*))?")


def _key(value):
    """``value`` as an ordering key (the release with trailing zeros dropped, then the local
    label, which sorts after none), or None when it is no release spelling."""
    if isinstance(value, (tuple, list)):
        value = ".".join(str(item) for item in value)
    if not isinstance(value, str):
        return None
    m = _RELEASE.fullmatch(value.strip())
    if m is None:
        return None
    release = [int(part) for part in m.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    local = m.group(2)
    parts = () if local is None else tuple(
        (1, int(p), "") if p.isdigit() else (0, 0, p.lower()) for p in re.split(r"[._-]", local))
    return tuple(release), local is not None, parts


class TorchVersion(str, metaclass=TorchNamedMeta):
    """``torch.__version__``: the version text, compared as a version with str, tuple or list
    (``torch.__version__ >= (2, 0)``), as text when the other side is no release spelling."""

    __slots__ = ()
    _torch_class_name = "torch.torch_version.TorchVersion"

    def _compare(self, other, method: str):
        mine, theirs = _key(str(self)), _key(other)
        if mine is None or theirs is None:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    # PyTorch's TorchVersion sets the five above and leaves != and hashing to str
    __hash__ = str.__hash__
