"""``fold.repeated_runs`` is found once per graph object: the window's controller asks it to
choose the layout, then the view asks again to fold (0.2 s each at 10,000 nodes)."""

from __future__ import annotations

import importlib

import networkx as nx

fold = importlib.import_module("engine.graph.fold")  # the package's ``fold`` is the function


def _chain(n: int) -> nx.DiGraph:
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(f"n{i}", kind="function", label="MulBackward0", group=None)
        if i:
            g.add_edge(f"n{i - 1}", f"n{i}")
    return g


def test_the_second_ask_of_one_graph_is_answered_from_the_first(monkeypatch):
    g = _chain(40)
    calls = []
    find = fold._repeated_runs
    monkeypatch.setattr(fold, "_repeated_runs", lambda *a: calls.append(a) or find(*a))
    first = fold.repeated_runs(g, 4)
    second = fold.repeated_runs(g, 4)
    assert len(calls) == 1
    assert first == second and first is not second  # a new list: callers may filter it
    assert [len(r) for r in first] == [40]
    fold.repeated_runs(g, 50)  # another length is another question
    other = _chain(40)  # another graph, even of the same structure, is asked anew
    assert fold.repeated_runs(other, 4) == first
    assert len(calls) == 3
