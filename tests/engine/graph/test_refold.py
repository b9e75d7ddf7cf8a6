"""``refold``: a replay's next step folds into the boxes of the step before, with its own
values, grads and executed flags (what ``fold`` of that step would give)."""

from __future__ import annotations

import numpy as np

from engine.graph import fold
from engine.graph.fold import refold
from engine.record.player import RecordedSession
from engine.record.synthetic import synthetic_recorded


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and np.array_equal(a, b)
    return a == b


def test_refold_of_a_later_step_is_that_steps_fold():
    session = RecordedSession(synthetic_recorded(600, iterations=1))
    session.go_to(len(session.timeline) // 2)  # half the backward run
    first = session.graph()
    groups = sorted({g for _, g in first.nodes(data="group") if g and g.count(".") == 1})
    assert len(groups) > 3
    groups = set(groups[::2])  # every other layer: the rest stays, edges between them merge
    template = fold(first, groups)
    session.go_to(len(session.timeline) - 1)  # the backward done: grads on edges, nodes ran
    later = session.graph()
    expected, got = fold(later, groups), refold(later, template)
    assert list(got.nodes) == list(expected.nodes)
    assert list(got.edges) == list(expected.edges)
    assert all(_same(got.nodes[n], expected.nodes[n]) for n in expected.nodes)
    assert all(_same(got.edges[e], expected.edges[e]) for e in expected.edges)
    # the later step differs from the first: the test would see a stale copy
    moved = [e for e in expected.edges if "folded" in expected.edges[e]]
    assert any(not _same(expected.edges[e], template.edges[e]) for e in moved)
    assert any(not _same(expected.nodes[n], template.nodes[n]) for n in expected.nodes)
    assert got.graph == expected.graph
