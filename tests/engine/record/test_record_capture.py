"""Capturing a live torch graph: names, groups, saved tensors, budgets, and no torch at import."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# torch's thread pool spins for milliseconds per op when the cores are busy (shared machine)
torch.set_num_threads(1)

import engine.record as record
from engine.record import Budget

pytestmark = pytest.mark.torch


def _nodes_by_label(graph, label):
    return [n for n, a in graph.nodes(data=True) if a["label"] == label]


def test_capture_before_backward_has_structure_but_no_gradients():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * 3).sum()
    g = record.recorded_graph(record.capture(loss, names={"w": w}))
    assert set(g.nodes) == {"t:w", "t:w/AccumulateGrad", "loss/grad_fn:SumBackward0",
                            "loss/grad_fn:SumBackward0/0:MulBackward0", "t:loss"}
    assert all(e["grad"] is None for *_, e in g.edges(data=True))
    assert not any(a.get("executed") for _, a in g.nodes(data=True))
    assert g.nodes["t:w"]["grad"] is None
    np.testing.assert_array_equal(g.nodes["t:loss"]["value"], np.float32(9.0))


def test_capture_reads_saved_tensors_and_their_small_values():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    out = (a * b).sum()
    g = record.recorded_graph(record.capture(out, names={"a": a, "b": b}))
    (mul,) = _nodes_by_label(g, "MulBackward0")
    saved = g.nodes[mul]["saved"]
    assert saved == {"self": ((2,), "torch.float32"), "other": ((2,), "torch.float32")}
    np.testing.assert_array_equal(g.nodes[mul]["saved_values"]["other"], [3.0, 4.0])
    assert g.nodes[mul]["freed"] is False


def test_capture_after_backward_sees_freed_buffers_and_the_grads():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (a * a).sum()
    out.backward()
    g = record.recorded_graph(record.capture(out, names={"a": a}))
    (mul,) = _nodes_by_label(g, "MulBackward0")
    assert g.nodes[mul]["freed"] is True and g.nodes[mul]["saved"] == {}
    np.testing.assert_array_equal(g.nodes["t:a"]["grad"], [2.0, 4.0])


def test_unnamed_leaves_get_the_engines_anonymous_ids():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (a + 1).sum()
    g = record.recorded_graph(record.capture(out, name="total"))
    leaf = "t:total/grad_fn:SumBackward0/0:AddBackward0/0:AccumulateGrad/variable"
    assert g.nodes[leaf]["label"] == "(2,)" and g.nodes[leaf]["name"] is None
    assert g.has_edge(leaf, "total/grad_fn:SumBackward0/0:AddBackward0/0:AccumulateGrad")


def test_model_parameters_are_named_and_grouped_by_module():
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    with record.ModuleWatcher(model, prefix="net"):
        loss = model(torch.ones(4, 3)).pow(2).mean()
    g = record.recorded_graph(record.record_backward(loss, model=model, model_prefix="net"))
    assert g.nodes["t:net.0.weight"]["group"] == "net.0"
    assert g.nodes["t:net.2.bias/AccumulateGrad"]["group"] == "net.2"
    groups = Counter_of_groups(g)
    assert groups["ReluBackward0"] == {"net.1"}
    assert groups["AddmmBackward0"] == {"net.0", "net.2"}
    assert groups["PowBackward0"] == {None}  # made outside the model


def Counter_of_groups(g) -> dict:
    out: dict = {}
    for _, a in g.nodes(data=True):
        if a["kind"] == "function":
            out.setdefault(a["label"], set()).add(a["group"])
    return out


class _Flaky(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(2, 2)
        self.fail = True

    def forward(self, x):
        h = self.inner(x)
        if self.fail:
            raise RuntimeError("first call fails")
        return h.tanh()


def test_a_forward_that_raised_does_not_shift_later_groups():
    model = torch.nn.Sequential(_Flaky(), torch.nn.ReLU())
    with record.ModuleWatcher(model, prefix="m"):
        with pytest.raises(RuntimeError):
            model(torch.ones(1, 2))
        model[0].fail = False
        out = model(torch.ones(1, 2)).sum()
    groups = Counter_of_groups(record.recorded_graph(record.capture(out)))
    assert groups["AddmmBackward0"] == {"m.0.inner"}
    assert groups["TanhBackward0"] == {"m.0"}
    assert groups["ReluBackward0"] == {"m.1"}
    assert groups["SumBackward0"] == {None}


def test_watcher_removes_its_hooks():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    with record.ModuleWatcher(model):
        assert model[0]._forward_hooks and model[0]._forward_pre_hooks
    assert not model[0]._forward_hooks and not model[0]._forward_pre_hooks


def test_record_backward_removes_its_node_hooks():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (a * 2).sum()
    calls = []
    record.record_backward(out, names={"a": a}, retain_graph=True)
    out.grad_fn.register_hook(lambda gi, go: calls.append(1))
    out.backward()  # only the hook just added runs: the recorder's are gone
    assert calls == [1]
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 4.0])


def test_budget_keeps_statistics_of_arrays_too_large_to_write():
    big = torch.full((10, 10), float("nan"), requires_grad=True)
    small = torch.tensor([1.0], requires_grad=True)
    out = (big.sum() + small).sum()
    rec = record.record_backward(out, names={"big": big, "small": small},
                                 budget=Budget(max_array_elements=50))
    g = record.recorded_graph(rec)
    assert g.nodes["t:big"]["value"] is None
    assert g.nodes["t:big"]["value_stats"]["nan"] == 100
    assert g.nodes["t:big"]["grad"] is None and g.nodes["t:big"]["grad_stats"]["size"] == 100
    np.testing.assert_array_equal(g.nodes["t:small"]["value"], [1.0])
    assert g.edges["t:big", "t:big/AccumulateGrad"]["grad"] is None


def test_total_budget_is_spent_on_leaves_first():
    a = torch.ones(30, requires_grad=True)
    out = (a * 2).exp().sum()
    rec = record.record_backward(out, names={"a": a},
                                 budget=Budget(max_array_elements=100, max_total_elements=60))
    g = record.recorded_graph(rec)
    assert g.nodes["t:a"]["value"] is not None and g.nodes["t:a"]["grad"] is not None
    assert any(e["grad"] is None for *_, e in g.edges(data=True))


def test_a_node_with_several_outputs_replays_one_gradient_per_output():
    x = torch.arange(6.0, requires_grad=True)
    a, b, c = x.split(2)
    s = (a * 2).sum() + (b * 0).sum()  # c is never used: nothing arrives for it
    steps = record.replay_steps(record.record_backward(s, names={"x": x}))
    (split,) = [st for st in steps if st.node.name() == "SplitBackward0"]
    assert len(split.grads_in) == 3 and split.grads_in[2] is None
    np.testing.assert_array_equal(split.grads_in[0], [2.0, 2.0])
    np.testing.assert_array_equal(split.grads_out[0], [2.0, 2.0, 0.0, 0.0, 0.0, 0.0])
    assert split.twin is False  # the engine has no SplitBackward0: shown, not run
    (acc,) = [st for st in steps if st.node.kind == "accumulate"]
    assert acc.leaf_writes[0][0] == "t:x"
    np.testing.assert_array_equal(acc.leaf_writes[0][1], x.grad.numpy())


@pytest.mark.parametrize("total, expect_sum", [(23, False), (26, True)])
def test_a_replay_never_shows_a_sum_with_parts_left_out(total, expect_sum):
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    h = torch.tanh(x * 2)
    s = (h * 3).sum() + h.mean() + (h / 3).sum()
    rec = record.record_backward(s, names={"x": x, "s": s}, budget=Budget(100, total))
    g = record.recorded_graph(rec)
    (tanh,) = [n for n, a in g.nodes(data=True) if a["label"] == "TanhBackward0"]
    kept = [g.edges[tanh, v]["grad"] is not None for v in g.successors(tanh)]
    assert all(kept) == expect_sum and any(kept)  # the budget dropped some parts, or none
    (step,) = [st for st in record.replay_steps(g) if st.node_id == tanh]
    if expect_sum:
        np.testing.assert_allclose(step.grads_in[0], np.full(3, 3 + 1 / 3 + 1 / 3), rtol=1e-6)
    else:
        assert step.grads_in == [None]


def test_capture_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError, match="torch.Tensor"):
        record.capture([1.0, 2.0])


def test_engine_record_imports_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import engine.record as r\n"
            "try:\n    r.capture(None)\nexcept ImportError as e:\n    print('needs', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "pip install gradstep[torch]" in out


def test_importing_the_engine_and_the_recorder_loads_no_torch():
    # torch is an optional extra: only calling the recorder may import it.
    code = ("import sys, pkgutil, importlib, engine\n"
            "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
            "    importlib.import_module(m.name)\n"
            "print('torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
