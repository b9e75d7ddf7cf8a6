"""The graph model: what build_graph draws for real engine graphs, and its stable ids."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as T
from engine.graph import build_graph
from engine.graph.ids import MAX_READABLE
from tests.engine.graph.graph_cases import seed_demo, training_step

MUL = "t2/grad_fn:AddBackward0/0:MulBackward0"
ADD = "t2/grad_fn:AddBackward0"
SUM = "z/grad_fn:SumBackward0"
ACC = "t:t1/AccumulateGrad"


def test_seed_demo_before_backward():
    g = build_graph(seed_demo())
    assert set(g.nodes) == {"t:t1", ACC, MUL, ADD, "t:t2", SUM, "t:z"}
    assert {n: g.nodes[n]["label"] for n in g} == {
        "t:t1": "t1", ACC: "AccumulateGrad", MUL: "MulBackward0", ADD: "AddBackward0",
        "t:t2": "t2", SUM: "SumBackward0", "t:z": "z",
    }
    assert [g.nodes[n]["kind"] for n in ("t:t1", ACC, MUL)] == ["tensor", "accumulate", "function"]
    assert g.nodes[ACC]["node_name"] == "torch::autograd::AccumulateGrad"
    assert g.nodes[ACC]["variable"] == "t:t1"
    t1, t2 = g.nodes["t:t1"], g.nodes["t:t2"]
    assert t1["is_leaf"] and t1["requires_grad"] and t1["grad"] is None
    assert not t2["is_leaf"] and t2["retains_grad"] and t2["grad"] is None
    assert t1["shape"] == (3,) and t1["dtype"] == "torch.float32"
    np.testing.assert_array_equal(t1["value"], [1.0, 2.0, 3.0])
    # Forward direction; the constant 1 of ``+ 1`` has no node, so AddBackward0 has one input.
    assert set(g.edges) == {("t:t1", ACC), (ACC, MUL), (MUL, ADD), (ADD, SUM), (ADD, "t:t2"),
                            (SUM, "t:z")}
    assert g.edges[ACC, MUL]["count"] == 2 and g.edges[ACC, MUL]["slots"] == [0, 1]
    assert not any(g.nodes[n].get("executed") for n in g)
    assert all(g.edges[e]["grad"] is None for e in g.edges)
    assert g.nodes[MUL]["saved"] == {"self": ((3,), "torch.float32"),
                                     "other": ((3,), "torch.float32")}


def test_seed_demo_after_backward_has_the_flowing_gradients():
    ns = seed_demo()
    steps = list(ns["z"].backward_steps())
    g = build_graph(ns, steps)
    assert {n: g.nodes[n]["executed_index"] for n in (SUM, ADD, MUL, ACC)} == {
        SUM: 0, ADD: 1, MUL: 2, ACC: 3}
    np.testing.assert_array_equal(g.edges[SUM, "t:z"]["grad"], 1.0)  # the root's seed
    np.testing.assert_array_equal(g.edges[ADD, SUM]["grad"], [1, 1, 1])
    np.testing.assert_array_equal(g.edges[MUL, ADD]["grad"], [1, 1, 1])
    grads = g.edges[ACC, MUL]["grads"]
    assert len(grads) == 2
    for grad in grads:  # t1 * t1: [1, 2, 3] along each use, summed into t1.grad
        np.testing.assert_array_equal(grad, [1, 2, 3])
    np.testing.assert_array_equal(g.edges[ACC, MUL]["grad"], [2, 4, 6])
    np.testing.assert_array_equal(g.edges["t:t1", ACC]["grad"], [2, 4, 6])
    np.testing.assert_array_equal(g.nodes["t:t1"]["grad"], [2, 4, 6])
    np.testing.assert_array_equal(g.nodes["t:t2"]["grad"], [1, 1, 1])
    assert g.nodes[MUL]["freed"] and g.nodes[MUL]["saved"] == {}


def test_node_names_match_pytorch():
    torch = pytest.importorskip("torch")

    def names(fn, seen):
        if fn is None or id(fn) in seen:
            return []
        seen.add(id(fn))
        out = [fn.name().rsplit(":", 1)[-1]]
        for nxt, _ in fn.next_functions:
            out += names(nxt, seen)
        return out

    def build(lib):
        x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        y = (x @ w).relu().exp().mean()
        return x, w, y

    *_, y_torch = build(torch)
    x, w, y = build(T)
    g = build_graph({"x": x, "w": w, "y": y})
    drawn = sorted(a["label"] for _, a in g.nodes(data=True) if a["kind"] != "tensor")
    assert drawn == sorted(names(y_torch.grad_fn, set()))


def test_snapshot_values_do_not_follow_later_in_place_updates():
    w = T.tensor([1.0, 2.0], requires_grad=True)
    g = build_graph({"w": w})
    with T.no_grad():
        w.sub_(T.tensor([1.0, 1.0]))
    np.testing.assert_array_equal(g.nodes["t:w"]["value"], [1.0, 2.0])


def test_ids_are_stable_across_iterations_while_values_differ():
    ns1, steps1 = training_step(0)
    ns2, steps2 = training_step(1)
    g1, g2 = build_graph(ns1, steps1), build_graph(ns2, steps2)
    assert list(g1.nodes) == list(g2.nodes)
    assert set(g1.edges) == set(g2.edges)
    assert not np.array_equal(g1.nodes["t:w"]["value"], g2.nodes["t:w"]["value"])
    assert not np.array_equal(g1.nodes["t:w"]["grad"], g2.nodes["t:w"]["grad"])
    assert "t:w/AccumulateGrad" in g1 and "t:b/AccumulateGrad" in g1
    assert any(n.startswith("pred/grad_fn:") for n in g1)


def test_previous_graph_reports_what_changed():
    ns, _ = training_step(0)
    before = build_graph(ns)
    with T.no_grad():
        ns["w"].add_(1.0)
    after = build_graph(ns, previous=before)
    assert after.graph["changed"] == ["t:w"]
    assert after.graph["added"] == [] and after.graph["removed"] == []
    ns["extra"] = T.ones(1)
    del ns["target"]
    later = build_graph(ns, previous=after)
    assert later.graph["added"] == ["t:extra"] and later.graph["removed"] == ["t:target"]
    assert later.graph["changed"] == []


class FakeModule:
    """Looks like nn.Module (a ``named_parameters`` method) but is not one: an ordinary value."""

    def __init__(self, params):
        self._params = params

    def named_parameters(self):
        raise AssertionError("the graph must never call a look-alike's methods")


def test_module_parameters_are_named_by_path_and_grouped():
    nn = pytest.importorskip("engine.nn")
    model = nn.Module()
    model.fc1 = nn.Linear(2, 2)
    weight, bias = model.fc1.weight, model.fc1.bias
    out = (T.ones(2) @ weight + bias).sum()
    out.grad_fn.metadata["module"] = "model.fc1"
    g = build_graph({"model": model, "out": out,
                     "fake": FakeModule({"fc1.weight": T.ones(2, requires_grad=True)})})
    assert g.nodes["t:model.fc1.weight"]["group"] == "model.fc1"
    assert g.nodes["t:model.fc1.weight/AccumulateGrad"]["group"] == "model.fc1"
    assert g.nodes["out/grad_fn:SumBackward0"]["group"] == "model.fc1"
    assert not any(n.startswith("t:fake") for n in g.nodes)


def test_engine_nn_module_parameters_are_found():
    nn = pytest.importorskip("engine.nn")
    net = nn.Linear(3, 2)
    g = build_graph({"net": net, "nn": nn})
    assert {"t:net.weight", "t:net.bias"} <= set(g.nodes)
    assert g.nodes["t:net.weight"]["group"] == "net"


def test_containers_aliases_and_anonymous_leaves():
    a = T.ones(2, requires_grad=True)
    y = (a * T.ones(2, requires_grad=True)).sum()
    g = build_graph({"a": a, "pair": [a, y], "d": {"k": y}, "count": 3})
    assert g.nodes["t:a"]["aliases"] == ["pair[0]"]
    assert g.nodes["t:pair[1]"]["aliases"] == ["d['k']"]
    anonymous = [n for n, attrs in g.nodes(data=True) if attrs["kind"] == "tensor"
                 and attrs["name"] is None]
    assert len(anonymous) == 1 and anonymous[0].endswith("/1:AccumulateGrad/variable")
    assert g.nodes[anonymous[0]]["is_leaf"] and g.nodes[anonymous[0]]["label"] == "(2,)"


def test_ids_stay_short_and_unique_on_a_deep_chain():
    x = T.ones(2, requires_grad=True)
    h = x
    for _ in range(400):
        h = h * 1.0
    g = build_graph({"x": x, "h": h})
    assert g.number_of_nodes() == 400 + 3
    assert max(len(n) for n in g) < MAX_READABLE + 40
    assert len(set(g.nodes)) == g.number_of_nodes()


def test_nodes_come_in_creation_order():
    ns, _ = training_step(0)
    g = build_graph(ns)
    seq = [a["sequence_nr"] for _, a in g.nodes(data=True) if a["kind"] == "function"]
    assert seq == sorted(seq)
    ids = list(g.nodes)
    for acc in (n for n, a in g.nodes(data=True) if a["kind"] == "accumulate"):
        users = list(g.successors(acc))
        assert all(ids.index(acc) < ids.index(u) for u in users)
        assert ids.index(g.nodes[acc]["variable"]) < ids.index(acc)


def test_ops_on_a_modules_parameters_join_its_group_without_annotations():
    nn = pytest.importorskip("engine.nn")
    T.manual_seed(0)
    fc1, fc2 = nn.Linear(2, 3), nn.Linear(3, 1)
    x = T.randn(4, 2)
    loss = fc2(fc1(x).tanh()).sum()
    g = build_graph({"fc1": fc1, "fc2": fc2, "x": x, "loss": loss})
    by_group: dict = {}
    for _, a in g.nodes(data=True):
        if a["kind"] == "function":
            by_group.setdefault(a["group"], []).append(a["label"])
    # The Linear layers' own ops join them; the activation between them and the loss do not
    # (the first Addmm also reads x, which needs no grad: it must not pull TanhBackward0 in).
    assert sorted(by_group["fc1"]) == ["AddmmBackward0", "TBackward0"]
    assert sorted(by_group["fc2"]) == ["AddmmBackward0", "TBackward0"]
    assert sorted(by_group[None]) == ["SumBackward0", "TanhBackward0"]


def run_program(program, values_seed: int) -> dict:
    """Run a random straight-line program: ``program`` lists (op, operand indices, name)."""
    rng = np.random.default_rng(values_seed)
    pool = [T.tensor(rng.standard_normal(3), requires_grad=True),
            T.tensor(rng.standard_normal(3), requires_grad=True),
            T.tensor(rng.standard_normal(3))]
    ns = {"a": pool[0], "b": pool[1], "c": pool[2]}
    ops = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "sub": lambda x, y: x - y,
           "tanh": lambda x, y: x.tanh(),
           "leaf": lambda x, y: T.tensor(rng.standard_normal(3), requires_grad=True)}
    for op, (i, j), name in program:
        x, y = pool[i % len(pool)], pool[j % len(pool)]
        out = ops[op](x, y)
        pool.append(out)
        if name:
            ns[f"v{len(pool)}"] = out
    ns["out"] = sum((t.sum() for t in pool[3:] if t.requires_grad), pool[0].sum())
    return ns


programs = st.lists(
    st.tuples(st.sampled_from(["add", "mul", "sub", "tanh", "leaf"]),
              st.tuples(st.integers(0, 40), st.integers(0, 40)), st.booleans()),
    min_size=1, max_size=12)


@settings(max_examples=30, deadline=None)
@given(programs)
def test_random_programs_get_the_same_ids_for_the_same_structure(program):
    first = run_program(program, 0)
    second = run_program(program, 1)
    g1 = build_graph(first, list(first["out"].backward_steps()))
    g2 = build_graph(second, list(second["out"].backward_steps()))
    assert list(g1.nodes) == list(g2.nodes)
    assert set(g1.edges) == set(g2.edges)
    for node_id, attrs in g1.nodes(data=True):
        if attrs["kind"] == "function":
            # Every input that needs a gradient is an edge; all ran in the backward.
            uses = sum(g1.edges[u, node_id]["count"] for u in g1.predecessors(node_id))
            assert uses <= attrs["inputs"] and attrs["executed"]
        if attrs["kind"] == "tensor" and attrs["name"] == "a":
            assert not np.array_equal(attrs["value"], g2.nodes[node_id]["value"])
    for _, v, edge in g1.edges(data=True):
        if g1.nodes[v]["kind"] == "function":
            assert len(edge["grads"]) == edge["count"] and edge["grad"] is not None
