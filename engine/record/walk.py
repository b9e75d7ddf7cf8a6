"""One walk of a live torch ``grad_fn`` graph: every node once, with the engine's stable ids.

Ids follow ``engine.graph.ids`` exactly (``t:<name>`` for named tensors, the breadth-first path
from a named root for function nodes, ``t:<leaf>/AccumulateGrad`` for a named leaf's accumulator),
so the recording of a script and the engine's graph of the same script share their ids, and a
training loop's graph keeps its ids from one iteration to the next.
"""

from __future__ import annotations

from ..graph.walk import GradFnWalk

ACCUMULATE_TYPE = "AccumulateGrad"


def is_accumulate(fn) -> bool:
    """Whether ``fn`` is torch's ``AccumulateGrad`` (the node that writes a leaf's ``.grad``)."""
    return type(fn).__name__ == ACCUMULATE_TYPE


class GraphWalk(GradFnWalk):
    """The shared walker (``engine.graph.walk``) over a live torch graph: accumulators are torch's
    ``AccumulateGrad``, creation numbers its ``_sequence_nr()``.

    Parameters
    ----------
    named : list of NamedTorchTensor
        The tensors to draw, in order; the ``grad_fn`` graphs behind them are walked.
    """

    def __init__(self, named: list) -> None:
        super().__init__(named, is_accumulate, lambda fn: fn._sequence_nr())
