"""The recorded graph of each snippet (real PyTorch) matches the engine's graph of the same code:
node ids and names, edges, leaf values and grads, the gradient on every edge, and the backward
replay order with each step's gradients."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# torch's thread pool spins for milliseconds per op when the cores are busy (shared machine)
torch.set_num_threads(1)

import engine
import engine.record as record
from engine.graph import build_graph
from tests.engine.record.snippets import SNIPPETS

pytestmark = pytest.mark.torch


def _namespace(t) -> dict:
    return {"torch": t, "nn": t.nn, "F": t.nn.functional, "Variable": t.autograd.Variable}


def engine_graph(root: str, source: str):
    ns = _namespace(engine)
    exec(source, ns)
    steps = list(ns[root].backward_steps())
    return build_graph(ns, steps), steps, ns


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
    engine_g, steps, ns = engine_graph(root, source)
    recorded = torch_recording(root, source)
    return engine_g, steps, recorded, record.recorded_graph(recorded), ns


def test_same_nodes_and_names(pair):
    eg, _, _, rg, _ = pair
    assert rg.graph["recorded"] is True
    assert {n: (a["kind"], a["label"]) for n, a in rg.nodes(data=True)} == \
        {n: (a["kind"], a["label"]) for n, a in eg.nodes(data=True)}
    for n, a in eg.nodes(data=True):
        if a["kind"] != "tensor":
            assert rg.nodes[n]["node_name"] == a["node_name"], n


def test_same_edges_as_label_pairs(pair):
    eg, _, _, rg, _ = pair

    def label_pairs(g):
        return Counter((g.nodes[u]["label"], g.nodes[v]["label"], e["count"])
                       for u, v, e in g.edges(data=True))

    assert label_pairs(rg) == label_pairs(eg)
    assert set(rg.edges) == set(eg.edges)


def test_same_node_order(pair):
    # The layout starts its crossing reduction from node order: the same order, the same picture.
    eg, _, _, rg, _ = pair
    assert list(rg.nodes) == list(eg.nodes)


def test_same_tensor_attributes_values_and_grads(pair):
    eg, _, _, rg, _ = pair
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
    eg, _, _, rg, _ = pair
    for u, v, e in eg.edges(data=True):
        r = rg.edges[u, v]
        assert r["slots"] == e["slots"], (u, v)
        assert r["output_nr"] == e["output_nr"], (u, v)
        _close(r["grad"], e["grad"], f"edge {u} -> {v}")
        for k, (rg_k, eg_k) in enumerate(zip(r["grads"], e["grads"])):
            _close(rg_k, eg_k, f"edge {u} -> {v} use {k}")


def test_replay_runs_in_the_engines_backward_order(pair):
    eg, steps, _, rg, _ = pair
    replay = record.replay_steps(rg)
    engine_order = sorted((a["executed_index"], n) for n, a in eg.nodes(data=True)
                          if a["kind"] != "tensor" and a["executed"])
    assert [s.node_id for s in replay] == [n for _, n in engine_order]
    assert [s.node.name() for s in replay] == [s.node.name() for s in steps]
    assert [s.index for s in replay] == list(range(len(steps)))


def test_replay_steps_carry_the_engines_gradients(pair):
    _, steps, _, rg, _ = pair
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


def test_stepping_the_replay_shows_what_the_engine_shows_mid_backward(pair):
    # build_graph(namespace, first k steps) is what the engine's debugger draws at step k.
    eg, steps, _, rg, ns = pair
    for k in sorted({0, 1, len(steps) // 2, len(steps) - 1, len(steps)}):
        theirs = build_graph(ns, steps[:k])
        mine = record.graph_at_step(rg, k)
        assert mine.graph["replay_step"] == k
        for n, a in theirs.nodes(data=True):
            if a["kind"] != "tensor":
                assert mine.nodes[n]["executed"] == a["executed"], (k, n)
                assert mine.nodes[n]["executed_index"] == a["executed_index"], (k, n)
        for u, v, e in theirs.edges(data=True):
            _close(mine.edges[u, v]["grad"], e["grad"], f"step {k}: edge {u} -> {v}")
        for n, a in mine.nodes(data=True):
            if a["kind"] == "tensor" and a["grad"] is not None:
                writers = mine.successors(n) if a["is_leaf"] else mine.predecessors(n)
                assert any(mine.nodes[w]["executed"] for w in writers), (k, n)
    # the recorded graph itself is left as it was
    assert sum(bool(a.get("executed")) for _, a in rg.nodes(data=True)) == len(steps)


def test_at_least_fifteen_snippets():
    assert len(SNIPPETS) >= 15


TRAINING_SETUP = """
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    model[0].bias.copy_(torch.tensor([0.01, -0.02]))
    model[2].weight.copy_(torch.tensor([[0.3, -0.7]]))
    model[2].bias.copy_(torch.tensor([0.5]))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
y = torch.tensor([[1.0], [-1.0]])
"""
TRAINING_LOOP = """
for i in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
"""


def test_recorded_training_state_matches_the_engines_saved_state(tmp_path):
    # The recorder's per-iteration state and the engine's capture_state speak the same format:
    # the same names, optimizer hyperparameters and per-parameter state after three Adam steps.
    from engine.files import capture_state, load

    ns = _namespace(torch)
    exec(TRAINING_SETUP, ns)
    with record.session(tmp_path / "train.gstep", names=ns, optimizer=ns["opt"],
                        optimizer_name="opt"):
        exec(TRAINING_LOOP, ns)
    recorded = load(tmp_path / "train.gstep").recorded.iterations[-1]
    eng = _namespace(engine)
    exec(TRAINING_SETUP + TRAINING_LOOP, eng)
    expected = capture_state(eng, 3)
    for name in ("model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"):
        # the recorded value is the one the last forward used, before the last step
        _close(recorded.tensors[name].grad, expected.tensors[name].grad, f"{name} grad")
    _close(recorded.tensors["loss"].value, expected.tensors["loss"].value, "loss")
    mine, theirs = recorded.optimizers["opt"], expected.optimizers["opt"]
    assert mine.type == theirs.type == "Adam"
    assert mine.param_groups == theirs.param_groups
    assert mine.state.keys() == theirs.state.keys()
    for name, state in theirs.state.items():
        assert mine.state[name].keys() == state.keys(), name
        for key, value in state.items():
            _close(mine.state[name][key], value, f"{name} {key}")
