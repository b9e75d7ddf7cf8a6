"""Stable node ids: the same creation site and path give the same id on every iteration.

A training loop rebuilds its graph each iteration with fresh tensors and fresh nodes, so object
identity cannot name a node across iterations. What stays the same is how the node is reached: the
name of the tensor it hangs from and the ``next_functions`` indices walked from there. Ids spell
that path out (``loss/grad_fn:SumBackward0/0:MulBackward0/1:AccumulateGrad``) so they can be read
in a debugger; past :data:`MAX_READABLE` characters the prefix is replaced by a digest of the full
path, because the path of a node deep in a 10,000-op chain would otherwise cost memory quadratic in
the depth.
"""

from __future__ import annotations

import functools
import hashlib

MAX_READABLE = 160
"""Longest path id spelt out in full; longer ones keep their root and tail around a digest."""


def tensor_id(name: str) -> str:
    """The id of a tensor bound to ``name`` (``t:model.fc1.weight``)."""
    return f"t:{name}"


@functools.lru_cache(maxsize=1024)
def label_of(node_name: str) -> str:
    """The display label of a node: PyTorch's name after the last ``:``."""
    return node_name.rsplit(":", 1)[-1]


class PathId:
    """The path that reaches a node: its readable id and a digest of the whole path.

    Parameters
    ----------
    root : str
        Where the path starts: a tensor name such as ``loss``.
    text : str
        The id: the full path, or ``root/~digest/tail`` once it grew too long.
    digest : bytes
        A digest of the full path, extended segment by segment (never re-hashing the prefix).
    """

    __slots__ = ("root", "text", "digest")

    def __init__(self, root: str, text: str, digest: bytes) -> None:
        self.root = root
        self.text = text
        self.digest = digest

    @classmethod
    def start(cls, root: str, segment: str) -> "PathId":
        """The path of the first node below ``root``, e.g. ``loss/grad_fn:SumBackward0``."""
        text = f"{root}/{segment}"
        return cls(root, text, _extend(root.encode(), segment))

    def child(self, segment: str) -> "PathId":
        """The path one step further, through ``segment`` (``1:AccumulateGrad``)."""
        digest = _extend(self.digest, segment)
        text = f"{self.text}/{segment}"
        if len(text) > MAX_READABLE:
            text = f"{self.root}/~{digest.hex()}/{segment}"
        return PathId(self.root, text, digest)


def _extend(digest: bytes, segment: str) -> bytes:
    return hashlib.blake2b(digest + b"/" + segment.encode(), digest_size=8).digest()
