"""Repeated blocks of several ops fold into one counted box (issue 16): a loop body written
without modules is drawn once, ``×6 MmBackward0 → AddBackward0 → ReluBackward0``."""

from __future__ import annotations

import networkx as nx
import pytest

import engine
from engine.graph import build_graph
from engine.graph.blocks import repeated_blocks
from engine.graph.fold import fold_runs, repeated_runs, run_id

MLP = """
torch.manual_seed(0)
W = [torch.randn(8, 8, requires_grad=True) for _ in range(6)]
b = [torch.zeros(8, requires_grad=True) for _ in range(6)]
x = torch.randn(4, 8)
h = x
for i in range(6):
    h = torch.relu(h @ W[i] + b[i])
loss = h.sum()
"""

TRANSFORMER = """
torch.manual_seed(0)
L, d = 4, 8
def params():
    return [torch.randn(d, d, requires_grad=True) for _ in range(L)]
Wq, Wk, Wv, W1, W2 = params(), params(), params(), params(), params()
x = torch.randn(5, d)
h = x
for l in range(L):
    q, k, v = h @ Wq[l], h @ Wk[l], h @ Wv[l]
    a = torch.softmax(q @ k.T / d ** 0.5, dim=-1) @ v
    h = h + a
    h = h + torch.relu(h @ W1[l]) @ W2[l]
    h = (h - h.mean(-1, keepdim=True)) / (h.std(-1, keepdim=True) + 1e-5)
loss = h.pow(2).mean()
"""

RNN = """
torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(3, 4, requires_grad=True)
xs = torch.randn(7, 2, 3)
h = torch.zeros(2, 4)
for t in range(7):
    h = torch.tanh(h @ W + xs[t] @ U)
loss = h.sum()
"""


def _namespace(t) -> dict:
    return {"torch": t}


def engine_graph(source: str, root: str = "loss", backward: bool = False):
    ns = _namespace(engine)
    exec(source, ns)
    steps = list(ns[root].backward_steps()) if backward else []
    return build_graph(ns, steps)


def boxes(folded) -> dict:
    return {n: a for n, a in folded.nodes(data=True) if a.get("kind") == "group"}


def ops(graph) -> list:
    return [n for n, a in graph.nodes(data=True) if a["kind"] == "function"]


def test_a_six_layer_mlp_without_modules_folds_into_one_box():
    g = engine_graph(MLP)
    runs = repeated_runs(g, 4)
    assert len(runs) == 1
    (run,) = runs
    assert run.count == 6 and run.unit == ("MmBackward0", "AddBackward0", "ReluBackward0")
    assert run.label == "×6 MmBackward0 → AddBackward0 → ReluBackward0"
    # The 18 ops, then each layer's own weights (leaf and accumulator), in creation order.
    layer_ops = [n for n in ops(g) if g.nodes[n]["label"] != "SumBackward0"]
    assert list(run[:18]) == layer_ops
    weights = [f"t:{w}[{i}]" for i in range(6) for w in "Wb"]
    assert list(run[18:]) == [n for w in weights for n in (w, f"{w}/AccumulateGrad")]
    folded = fold_runs(g, runs)
    box = folded.nodes[run_id(layer_ops[0])]
    assert box["label"] == run.label and box["members"] == list(run)
    assert box["fold_key"] == run_id(layer_ops[0]) and box["run"] and box["count"] == 6
    # What the layers feed stays outside: the named h and the loss.
    assert set(folded.successors(run_id(layer_ops[0]))) == {"t:h", "loss/grad_fn:SumBackward0"}
    assert not list(folded.predecessors(run_id(layer_ops[0])))  # the batch needs no grad
    assert folded.number_of_nodes() == g.number_of_nodes() - len(run) + 1
    assert nx.is_directed_acyclic_graph(folded)


@pytest.mark.parametrize("source", [MLP, TRANSFORMER, RNN], ids=["mlp", "transformer", "rnn"])
def test_the_box_is_named_and_wired_as_real_pytorch_records_the_same_script(source):
    torch = pytest.importorskip("torch")
    import engine.record as record

    torch.set_num_threads(1)  # its thread pool spins when the shared cores are busy
    ns = _namespace(torch)
    exec(source, ns)
    recorded = record.recorded_graph(record.record_backward(ns["loss"], names=ns))
    (theirs,) = repeated_runs(recorded, 4)
    (mine,) = repeated_runs(engine_graph(source, backward=True), 4)
    assert theirs.unit == mine.unit and theirs.count == mine.count
    assert list(theirs) == list(mine)
    assert fold_runs(recorded, [theirs]).nodes[run_id(theirs[0])]["label"] == mine.label


def test_a_transformer_like_layer_folds_with_all_its_weights():
    g = engine_graph(TRANSFORMER)
    (run,) = repeated_runs(g, 4)
    assert run.count == 4
    # One layer's ops, as the loop body creates them.
    body = [g.nodes[n]["label"] for n in ops(g)][:len(run.unit)]
    assert list(run.unit) == body and body[0] == "MmBackward0" and "SoftmaxBackward0" in body
    leaves = {n for n, a in g.nodes(data=True) if a["kind"] == "tensor" and a["requires_grad"]
              and a["is_leaf"]}
    assert leaves == {f"t:{w}[{i}]" for w in ("Wq", "Wk", "Wv", "W1", "W2") for i in range(4)}
    assert leaves <= set(run)
    folded = fold_runs(g, [run])
    assert [a["label"] for a in boxes(folded).values()] == [run.label]
    assert nx.is_directed_acyclic_graph(folded)
    # All that is left: the box, the loss's ops, the named tensors.
    assert folded.number_of_nodes() == g.number_of_nodes() - len(run) + 1


def test_an_unrolled_rnn_folds_and_its_shared_weights_stay_outside():
    g = engine_graph(RNN, backward=True)
    (run,) = repeated_runs(g, 4)
    assert run.count == 7 and run.unit[-1] == "TanhBackward0"
    assert "t:W" not in run and "t:W/AccumulateGrad" not in run
    folded = fold_runs(g, [run])
    rid = run_id(run[0])
    edge = folded.edges["t:W/AccumulateGrad", rid]
    assert edge["count"] == 7 and len(edge["folded"]) == 7
    # The seven gradients that flowed back to W from the box, summed: W's whole gradient.
    w_grad = folded.nodes["t:W"]["grad"]
    assert edge["grad"].shape == w_grad.shape
    assert abs(edge["grad"] - w_grad).max() < 1e-5


def scalar_chain(body: str):
    """The graph of ``body`` run on ``y``, a copy of a leaf, summed into ``loss``."""
    return engine_graph(f"x = torch.ones(3, requires_grad=True)\ny = x\n{body}\nloss = y.sum()\n")


@pytest.mark.parametrize("body, label", [
    ("for i in range(10):\n    y = y * 2 + 1", "×10 MulBackward0 → AddBackward0"),
    ("for i in range(50):\n    y = y * 1.5", "MulBackward0 ×50"),  # one op: a run
    # A run of one op inside a body folds with the body.
    ("for i in range(5):\n    for j in range(6):\n        y = y * 1.5\n    y = y.relu()",
     "×5 " + " → ".join(["MulBackward0"] * 6 + ["ReluBackward0"])),
    # A loop around a loop of Mul → Add: the outer repeat folds more ops.
    ("for i in range(5):\n    for j in range(4):\n        y = y * 2 + 1\n    y = y.relu()",
     "×5 " + " → ".join(["MulBackward0", "AddBackward0"] * 4 + ["ReluBackward0"])),
], ids=["two-ops", "one-op", "run-in-body", "loop-in-loop"])
def test_chains_of_scalar_ops_fold_whole(body, label):
    g = scalar_chain(body)
    (run,) = repeated_runs(g, 4)
    assert run.label == label
    assert set(run) == set(ops(g)) - {"loss/grad_fn:SumBackward0"}
    assert (repeated_blocks(g, 4) == []) == (label == "MulBackward0 ×50")


def test_layers_wired_two_ways_in_turn_fold_as_pairs():
    source = MLP.replace("range(6)", "range(12)").replace(
        "h = torch.relu(h @ W[i] + b[i])",
        "h = torch.relu(h @ W[i] + b[i]) if i % 2 else torch.relu(b[i] + h @ W[i])")
    (run,) = repeated_runs(engine_graph(source), 4)
    assert run.count == 6 and run.unit == ("MmBackward0", "AddBackward0", "ReluBackward0") * 2


@pytest.mark.parametrize("source", [
    # Three layers: fewer than the four copies a run needs.
    MLP.replace("range(6)", "range(3)"),
    # The same names, wired otherwise every other layer: b + h @ W reads the product second.
    MLP.replace("h = torch.relu(h @ W[i] + b[i])",
                "h = torch.relu(h @ W[i] + b[i]) if i % 2 else torch.relu(b[i] + h @ W[i])"),
    # Each layer reads every layer before it (dense connections): not a chain of copies.
    """
torch.manual_seed(0)
W = [torch.randn(4, 4, requires_grad=True) for _ in range(6)]
outs = [torch.ones(2, 4, requires_grad=True)]
for i in range(6):
    outs.append(torch.relu(sum(outs[1:], outs[0]) @ W[i]))
loss = outs[-1].sum()
""",
    # Six copies side by side, read by one op: alike, but not one after the other.
    """
torch.manual_seed(0)
x = torch.randn(4, 8, requires_grad=True)
W = [torch.randn(8, 8, requires_grad=True) for _ in range(6)]
loss = torch.stack([torch.relu(x @ w).sum() for w in W]).sum()
""",
    # Ops that do not repeat.
    """
x = torch.ones(3, requires_grad=True)
loss = (x.exp() * 2 + x.sin()).relu().sum() / x.cos().sum()
""",
], ids=["three-layers", "wired-otherwise", "dense", "side-by-side", "no-repeat"])
def test_what_does_not_repeat_along_a_chain_does_not_fold(source):
    g = engine_graph(source)
    assert repeated_blocks(g, 4) == []


def test_a_layer_wired_otherwise_ends_the_repeat_and_the_rest_fold_on_their_own():
    # Layer 4 of 0..8 adds its bias first: four copies before it, four after.
    source = MLP.replace("range(6)", "range(9)").replace(
        "h = torch.relu(h @ W[i] + b[i])",
        "h = torch.relu(b[i] + h @ W[i]) if i == 4 else torch.relu(h @ W[i] + b[i])")
    g = engine_graph(source)
    runs = repeated_runs(g, 4)
    assert sorted(r.count for r in runs) == [4, 4]
    assert not set(runs[0]) & set(runs[1])


def test_opening_a_box_draws_its_nodes_again():
    g = engine_graph(MLP)
    runs = repeated_runs(g, 4)
    folded = fold_runs(g, runs)
    # The view opens a box by folding the other runs only (here: none).
    opened = fold_runs(g, [r for r in runs if run_id(r[0]) not in {run_id(runs[0][0])}])
    assert list(opened.nodes) == list(g.nodes) and set(opened.edges) == set(g.edges)
    assert set(folded.nodes) - set(g.nodes) == {run_id(runs[0][0])}


@pytest.mark.parametrize("source", [MLP, TRANSFORMER, RNN])
def test_every_node_is_drawn_or_in_exactly_one_box(source):
    # What search relies on: a hit inside a box highlights the box and opens it.
    g = engine_graph(source)
    folded = fold_runs(g, repeated_runs(g, 4))
    where = {}
    for box, attrs in boxes(folded).items():
        for member in attrs["members"]:
            assert member not in where
            where[member] = box
    assert set(g.nodes) == (set(folded.nodes) - set(boxes(folded))) | set(where)
    assert not set(where) & set(folded.nodes)
    assert where and all(box in folded for box in where.values())


def test_edges_into_a_box_merge_and_keep_every_original():
    g = engine_graph(TRANSFORMER.replace("x = torch.randn(5, d)",
                                         "x = torch.randn(5, d, requires_grad=True)"),
                     backward=True)
    (run,) = repeated_runs(g, 4)
    folded = fold_runs(g, [run])
    rid = run_id(run[0])
    edge = folded.edges["t:x/AccumulateGrad", rid]
    # x feeds the first layer's q, k, v and its residual.
    originals = [(u, v) for u, v in g.edges if u == "t:x/AccumulateGrad"]
    assert sorted(edge["folded"]) == sorted(originals) and len(originals) == 4
    x_grad = g.nodes["t:x"]["grad"]
    assert abs(edge["grad"] - x_grad).max() < 1e-5


def test_three_hundred_layers_fold_into_one_box():
    g = engine_graph(MLP.replace("range(6)", "range(300)").replace("8, 8", "2, 2")
                     .replace("zeros(8", "zeros(2").replace("randn(4, 8)", "randn(1, 2)"))
    (run,) = repeated_runs(g, 4)
    assert run.count == 300
