"""One walk of a live torch ``grad_fn`` graph: every node once, with the engine's stable ids.

Ids follow ``engine.graph.ids`` exactly (``t:<name>`` for named tensors, the breadth-first path
from a named root for function nodes, ``t:<leaf>/AccumulateGrad`` for a named leaf's accumulator),
so the recording of a script and the engine's graph of the same script share their ids, and a
training loop's graph keeps its ids from one iteration to the next.
"""

from __future__ import annotations

from collections import deque

from ..graph.ids import PathId, label_of, tensor_id

ACCUMULATE_TYPE = "AccumulateGrad"


def is_accumulate(fn) -> bool:
    """Whether ``fn`` is torch's ``AccumulateGrad`` (the node that writes a leaf's ``.grad``)."""
    return type(fn).__name__ == ACCUMULATE_TYPE


class GraphWalk:
    """The nodes reachable from the named tensors' ``grad_fn``, each with its graph id.

    Parameters
    ----------
    named : list of NamedTorchTensor
        The tensors to draw, in order; the ``grad_fn`` graphs behind them are walked.

    Attributes
    ----------
    fns : list
        Torch nodes in discovery order (function nodes and accumulators).
    fn_ids : dict
        ``id(node)`` -> graph id.
    anonymous_leaves : dict
        ``id(accumulator)`` -> (tensor id, leaf tensor) for leaves without a name.
    """

    def __init__(self, named: list) -> None:
        self.named = named
        self.by_tensor = {id(entry.tensor): entry for entry in named}
        self.fn_ids: dict[int, str] = {}
        self.fns: list = []
        self.anonymous_leaves: dict[int, tuple[str, object]] = {}
        self.accumulator_of: dict[int, object] = {}  # id(leaf tensor) -> its AccumulateGrad
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
        # Breadth first, as the engine's model does: a shared node is named by a shortest path.
        queue = deque([(root, root_path)])
        while queue:
            fn, path = queue.popleft()
            for i, (nxt, _) in enumerate(fn.next_functions):
                if nxt is None or id(nxt) in self.fn_ids:
                    continue
                child = path.child(f"{i}:{label_of(nxt.name())}")
                if is_accumulate(nxt):
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
        """``id(node)`` -> the sequence number of the first op that used it (to order leaves)."""
        first: dict[int, float] = {}
        for fn in self.fns:
            if is_accumulate(fn):
                continue
            seq = float(fn._sequence_nr())
            for nxt, _ in fn.next_functions:
                if nxt is not None and seq < first.get(id(nxt), float("inf")):
                    first[id(nxt)] = seq
        return first
