"""One walk of a ``grad_fn`` graph that gives every node its stable graph id.

Shared by the engine's graph model (``model.py``) and the recorder of real PyTorch graphs
(``engine/record/walk.py``): the recording of a script and the engine's graph of the same script
must get the same ids, so there is one walker, parameterised only by how to recognise an
accumulator and read a node's creation number.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from .ids import PathId, label_of, tensor_id


class GradFnWalk:
    """The nodes reachable from the named tensors' ``grad_fn``, each with its graph id.

    Ids: ``t:<name>`` for named tensors, the breadth-first path from a named root for function
    nodes (a node shared by several paths is named by one of its shortest), and
    ``t:<leaf>/AccumulateGrad`` for a named leaf's accumulator, whichever path reaches it first.

    Parameters
    ----------
    named : list
        Entries with ``name`` and ``tensor``, in drawing order.
    is_accumulator : callable
        Whether a node is the accumulator that writes a leaf's ``.grad``.
    sequence_of : callable
        A node's creation number.
    """

    def __init__(self, named: list, is_accumulator: Callable, sequence_of: Callable) -> None:
        self.named = named
        self.is_accumulator = is_accumulator
        self.sequence_of = sequence_of
        self.by_tensor = {id(entry.tensor): entry for entry in named}
        self.fn_ids: dict[int, str] = {}  # id(node) -> graph id
        self.fns: list = []  # nodes in discovery order
        self.anonymous_leaves: dict[int, tuple[str, object]] = {}  # id(acc) -> (tensor id, leaf)
        self.accumulator_of: dict[int, object] = {}  # id(leaf tensor) -> its accumulator
        roots = []
        for entry in named:
            fn = entry.tensor.grad_fn
            if fn is not None and id(fn) not in self.fn_ids:
                path = PathId.start(entry.name, f"grad_fn:{label_of(fn.name())}")
                self._assign(fn, path.text)
                roots.append((fn, path))
        for fn, path in roots:
            self._walk(fn, path)

    def _assign(self, fn, node_id: str) -> None:
        self.fn_ids[id(fn)] = node_id
        self.fns.append(fn)

    def _walk(self, root, root_path: PathId) -> None:
        queue = deque([(root, root_path)])
        while queue:
            fn, path = queue.popleft()
            for i, (nxt, _) in enumerate(fn.next_functions):
                if nxt is None or id(nxt) in self.fn_ids:
                    continue
                child = path.child(f"{i}:{label_of(nxt.name())}")
                if self.is_accumulator(nxt):
                    self._assign(nxt, self._accumulator_id(nxt, child))
                    self.accumulator_of[id(nxt.variable)] = nxt
                else:
                    self._assign(nxt, child.text)
                    queue.append((nxt, child))

    def _accumulator_id(self, acc, path: PathId) -> str:
        entry = self.by_tensor.get(id(acc.variable))
        if entry is not None:
            return f"{tensor_id(entry.name)}/AccumulateGrad"
        self.anonymous_leaves[id(acc)] = (f"t:{path.text}/variable", acc.variable)
        return path.text

    def leaf_of(self, acc) -> tuple[str, object]:
        """The graph id of an accumulator's leaf and the leaf (None when the leaf is named)."""
        entry = self.by_tensor.get(id(acc.variable))
        if entry is not None:
            return tensor_id(entry.name), None
        return self.anonymous_leaves[id(acc)]

    def first_uses(self) -> dict:
        """``id(node)`` -> the creation number of the first op that used it (to order leaves)."""
        first: dict[int, float] = {}
        for fn in self.fns:
            if self.is_accumulator(fn):
                continue
            seq = float(self.sequence_of(fn))
            for nxt, _ in fn.next_functions:
                if nxt is not None and seq < first.get(id(nxt), float("inf")):
                    first[id(nxt)] = seq
        return first
