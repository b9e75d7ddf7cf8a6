"""The recorded graph of each snippet (real PyTorch) matches the engine's graph of the same code:
node ids and names, edges, leaf values and grads, the gradient on every edge, and the backward
replay order with each step's gradients."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import engine  # noqa: E402
import engine.record as record  # noqa: E402
from engine.graph import build_graph  # noqa: E402
from snippets import SNIPPETS  # noqa: E402

pytestmark = pytest.mark.torch


def _namespace(t) -> dict:
    return {"torch": t, "nn": t.nn, "F": t.nn.functional, "Variable": t.autograd.Variable}


def engine_graph(root: str, source: str):
    ns = _namespace(engine)
    exec(source, ns)
    steps = list(ns[root].backward_steps())
    return build_graph(ns, steps), steps


def torch_recording(root: str, source: str):
    ns = _namespace(torch)
    exec(source, ns)
    return record.record_backward(ns[root], names=ns)


def _close(a, b, what: str) -> None:
    if a is None or b is None:
        assert a is None and b is None, f"{what}: {a!r} vs {b!r}"
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs {b.shape}"
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.fixture(params=sorted(SNIPPETS), scope="module")
def pair(request):
    root, source = SNIPPETS[request.param]
    engine_g, steps = engine_graph(root, source)
    recorded = torch_recording(root, source)
    return engine_g, steps, recorded, record.recorded_graph(recorded)


def test_same_nodes_and_names(pair):
    eg, _, _, rg = pair
    assert rg.graph["recorded"] is True
    assert {n: (a["kind"], a["label"]) for n, a in rg.nodes(data=True)} == \
        {n: (a["kind"], a["label"]) for n, a in eg.nodes(data=True)}
    for n, a in eg.nodes(data=True):
        if a["kind"] != "tensor":
            assert rg.nodes[n]["node_name"] == a["node_name"], n


def test_same_edges_as_label_pairs(pair):
    eg, _, _, rg = pair

    def label_pairs(g):
        return Counter((g.nodes[u]["label"], g.nodes[v]["label"], e["count"])
                       for u, v, e in g.edges(data=True))

    assert label_pairs(rg) == label_pairs(eg)
    assert set(rg.edges) == set(eg.edges)


def test_same_node_order(pair):
    # The layout starts its crossing reduction from node order: the same order, the same picture.
    eg, _, _, rg = pair
    assert list(rg.nodes) == list(eg.nodes)


def test_same_tensor_attributes_values_and_grads(pair):
    eg, _, _, rg = pair
    for n, a in eg.nodes(data=True):
        r = rg.nodes[n]
        if a["kind"] == "tensor":
            for key in ("name", "is_leaf", "requires_grad", "retains_grad", "shape", "dtype",
                        "group", "output_nr"):
                assert r[key] == a[key], (n, key, r[key], a[key])
            _close(r["value"], a["value"], f"{n} value")
            _close(r["grad"], a["grad"], f"{n} grad")
        else:
            assert r["executed"] == a["executed"], n
            assert r.get("variable") == a.get("variable"), n


def test_same_gradient_on_every_edge(pair):
    eg, _, _, rg = pair
    for u, v, e in eg.edges(data=True):
        r = rg.edges[u, v]
        assert r["slots"] == e["slots"], (u, v)
        assert r["output_nr"] == e["output_nr"], (u, v)
        _close(r["grad"], e["grad"], f"edge {u} -> {v}")
        for k, (rg_k, eg_k) in enumerate(zip(r["grads"], e["grads"])):
            _close(rg_k, eg_k, f"edge {u} -> {v} use {k}")


def test_replay_runs_in_the_engines_backward_order(pair):
    eg, steps, _, rg = pair
    replay = record.replay_steps(rg)
    engine_order = sorted((a["executed_index"], n) for n, a in eg.nodes(data=True)
                          if a["kind"] != "tensor" and a["executed"])
    assert [s.node_id for s in replay] == [n for _, n in engine_order]
    assert [s.node.name() for s in replay] == [s.node.name() for s in steps]
    assert [s.index for s in replay] == list(range(len(steps)))


def test_replay_steps_carry_the_engines_gradients(pair):
    _, steps, _, rg = pair
    replay = record.replay_steps(rg)
    for mine, theirs in zip(replay, steps, strict=True):
        what = f"step {theirs.index} {theirs.node.name()}"
        assert len(mine.grads_in) == len(theirs.grads_in), what
        for k, (a, b) in enumerate(zip(mine.grads_in, theirs.grads_in)):
            _close(a, b, f"{what} grads_in[{k}]")
        for k, (a, b) in enumerate(zip(mine.grads_out, theirs.grads_out)):
            if b is not None and a is not None:
                _close(a, b, f"{what} grads_out[{k}]")
        assert len(mine.leaf_writes) == len(theirs.leaf_writes), what
        for (leaf_id, a), (_, b) in zip(mine.leaf_writes, theirs.leaf_writes):
            _close(a, b, f"{what} write into {leaf_id}")
        assert mine.twin == (theirs.node.name() in record.engine_node_names()), what


def test_at_least_fifteen_snippets():
    assert len(SNIPPETS) >= 15
