"""One walk names the tensors of a namespace (``engine.naming``), and every consumer uses it.

Unit rules of the walk (spelling, order, depth, cycles, duplicates, look-alikes), then end to end
through the public Session API: a tensor kept in a dict, a list or a module attribute has the
same name in the graph, the snapshot's gradient-buffer rows, the NaN data breakpoint, a saved
``.gstep`` file (state saved, loaded, resumed), the ``.npz`` export and the builder's workspace.
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import naming, nn
from engine.builder.workspace import describe
from engine.files import GraphFile, capture_state, load, restore_state, save
from engine.files.npz import gradient_buffers
from engine.graph import build_graph
from engine.session import Session
from engine.session.panels_model import PanelsRecorder, buffer_rows
from engine.session.state import named_tensors as session_named_tensors
from engine.session.state import parameters_of


def names(ns) -> list[str]:
    return [e.name for e in naming.walk(ns).tensors]


# -- the walk's rules ------------------------------------------------------------------------------

def test_containers_are_spelled_as_code():
    w, b, x = engine.ones(2), engine.zeros(2), engine.ones(1)
    ns = {"d": {"w": w, 3: b, (1, 2): x, True: x}, "params": [engine.ones(3)],
          "pair": (engine.ones(4),)}
    assert names(ns) == ["d['w']", "d[3]", "params[0]", "pair[0]"]


def test_modules_are_named_by_path_with_the_script_spelling_kept_for_search():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    net = nn.Module()
    net.fc = nn.Linear(1, 1)
    walked = naming.walk({"model": model, "net": net})
    entries = {e.name: e for e in walked.tensors}
    assert list(entries) == ["model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias",
                             "net.fc.weight", "net.fc.bias"]
    assert list(entries) == [f"model.{n}" for n, _ in model.named_parameters()] + [
        f"net.{n}" for n, _ in net.named_parameters()]
    w = entries["model.2.weight"]
    assert w.expression == "model[2].weight" and "model[2].weight" in w.spellings
    assert w.group == "model.2" and w.parameter
    assert entries["net.fc.weight"].expression == "net.fc.weight"
    assert walked.lookup()["model[2].weight"] is model[2].weight
    assert [name for name, _ in walked.modules] == ["model", "model.0", "model.1", "model.2",
                                                    "net", "net.fc"]


def test_buffers_follow_parameters():
    weight = engine.tensor([1.0, 2.0])
    crit = nn.CrossEntropyLoss(weight=weight)
    walked = naming.walk({"crit": crit})
    (entry,) = walked.tensors
    assert entry.name == "crit.weight" and entry.buffer and not entry.parameter


def test_first_name_wins_and_the_others_are_aliases():
    model = nn.Linear(2, 2)
    w = model.weight
    walked = naming.walk({"model": model, "w": w, "d": {"w": w}, "opt": engine.optim.SGD(
        model.parameters(), lr=0.1)})
    entry = walked.entry_of(w)
    assert entry.name == "model.weight"
    assert entry.aliases == ["w", "d['w']", "opt.param_groups[0]['params'][0]"]
    # the same in every consumer
    assert build_graph({"model": model, "w": w}).nodes["t:model.weight"]["aliases"] == ["w"]
    assert "w" not in session_named_tensors({"model": model, "w": w})


def test_optimizer_parameters_nothing_else_names():
    p = engine.ones(2, requires_grad=True)
    opt = engine.optim.SGD([p], lr=0.1)
    walked = naming.walk({"opt": opt})
    assert names({"opt": opt}) == ["opt.param_groups[0]['params'][0]"]
    assert [o.name for o in walked.optimizers] == ["opt"]
    # a plain binding later in the namespace still wins over the optimizer's spelling
    assert names({"opt": opt, "p": p}) == ["p"]


def test_optimizer_state_is_read_without_creating_entries():
    w = engine.ones(2, requires_grad=True)
    unused = engine.ones(1, requires_grad=True)
    opt = engine.optim.SGD([w, unused], lr=0.1, momentum=0.9)
    (w * 2).sum().backward()
    opt.step()
    walked = naming.walk({"w": w, "unused": unused, "opt": opt})
    state = [(name, key) for _, name, key, _ in walked.optimizer_state(opt)]
    assert state == [("w", "momentum_buffer")]
    assert unused not in opt.state  # the defaultdict was not touched


def test_depth_and_cycles():
    t = engine.ones(1)
    assert names({"a": [[[t]]]}) == ["a[0][0][0]"]  # depth 3
    assert names({"a": [[[[t]]]]}) == []  # deeper: not searched
    loop: list = [t]
    loop.append(loop)
    d: dict = {"t": engine.zeros(1)}
    d["self"] = d
    assert names({"loop": loop, "d": d}) == ["loop[0]", "d['t']"]
    shared = [engine.ones(3)]
    walked = naming.walk({"a": shared, "b": shared})
    assert [e.aliases for e in walked.tensors] == [["b[0]"]]


def test_order_is_deterministic_and_underscore_names_are_skipped():
    ns = {"z": engine.ones(1), "_hidden": engine.ones(1), "a": [engine.ones(1)]}
    assert names(ns) == ["z", "a[0]"]
    assert names(ns) == names(dict(ns))


def test_look_alikes_are_ordinary_values_and_no_user_code_runs():
    calls = []

    class FakeModule:
        _parameters = {"w": engine.ones(1)}
        _modules: dict = {}

        def named_parameters(self):
            calls.append("named_parameters")
            return [("w", engine.ones(1))]

        def __getattr__(self, name):
            calls.append(name)
            raise AttributeError(name)

    class FakeOptimizer:
        param_groups = [{"params": [engine.ones(1)]}]
        state: dict = {}

    class MyList(list):
        def __iter__(self):
            calls.append("__iter__")
            return super().__iter__()

    class Net(nn.Module):  # a real module the script defines: walked through its dicts only
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)

        def named_parameters(self, *args, **kwargs):
            calls.append("Net.named_parameters")
            return super().named_parameters(*args, **kwargs)

        @property
        def weight_view(self):
            calls.append("property")
            return self.fc.weight

    ns = {"fake": FakeModule(), "opt": FakeOptimizer(), "xs": MyList([engine.ones(1)]),
          "net": Net()}
    assert names(ns) == ["net.fc.weight", "net.fc.bias"]
    assert naming.walk(ns).optimizers == []
    assert calls == []
    assert not naming.is_module(FakeModule()) and not naming.is_optimizer(FakeOptimizer())


def test_a_tensor_subclass_is_not_an_engine_tensor():
    class Mine(engine.Tensor):
        pass

    assert names({"p": nn.Parameter(engine.ones(1)), "t": engine.ones(1)}) == ["p", "t"]
    assert not naming.is_tensor(object.__new__(Mine))


def test_script_expression_leaves_dict_keys_alone():
    assert naming.script_expression("model.0.weight") == "model[0].weight"
    assert naming.script_expression("d['a.0.b'].1.weight") == "d['a.0.b'][1].weight"
    assert naming.script_expression("layer1.0.conv1.weight") == "layer1[0].conv1.weight"


# -- end to end: the same names everywhere ---------------------------------------------------------

SCRIPT = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor([0.5], requires_grad=True)
d = {'w': w}
params = [w, b]
model = torch.nn.Sequential(torch.nn.Linear(2, 1))
opt = torch.optim.SGD([w, b] + list(model.parameters()), lr=0.1, momentum=0.9)
x = torch.tensor([[1.0, 2.0]])
for i in range(2):
    opt.zero_grad()
    loss = ((x * d['w']).sum() + params[1].sum() + model(x).sum()) ** 2
    loss.backward()
    opt.step()
"""
# In SCRIPT ``w`` and ``b`` are bound to plain names too; CONTAINED keeps them only in containers.
CONTAINED = """\
import torch
d = {'w': torch.tensor([1.0, -2.0], requires_grad=True)}
params = [torch.tensor([0.5], requires_grad=True)]
model = torch.nn.Sequential(torch.nn.Linear(2, 1))
opt = torch.optim.SGD([d['w']] + params + list(model.parameters()), lr=0.1, momentum=0.9)
x = torch.tensor([[1.0, 2.0]])
for i in range(2):
    opt.zero_grad()
    loss = ((x * d['w']).sum() + params[0].sum() + model(x).sum()) ** 2
    loss.backward()
    opt.step()
"""
CONTAINED_NAMES = ["d['w']", "params[0]", "model.0.weight", "model.0.bias"]

NAN_IN_DICT = """\
import torch
ok = torch.tensor([1.0, 0.0])
d = {'w': torch.log(ok)}
z = 1
"""


def _finished(source: str) -> Session:
    s = Session(source)
    s.continue_()
    assert s.status == "finished", s.status
    return s


def test_tensors_in_dicts_lists_and_modules_have_one_name_everywhere(tmp_path):
    s = _finished(CONTAINED)
    # graph labels and ids
    graph = s.graph()
    graph_names = [a["name"] for _, a in graph.nodes(data=True)
                   if a["kind"] == "tensor" and a["name"] in CONTAINED_NAMES]
    assert sorted(graph_names) == sorted(CONTAINED_NAMES)
    assert graph.nodes["t:model.0.weight"]["aliases"][:1] == ["model[0].weight"]
    # the session's snapshot: every one has a record with its grad
    snap = s.snapshot()
    for name in CONTAINED_NAMES:
        assert snap.tensors[name].grad is not None, name
    # its optimizer state is keyed by the same names
    assert {(p, k) for (_, p, k) in snap.optimizer} == {
        (n, "momentum_buffer") for n in CONTAINED_NAMES}
    # the gradient-buffer panel's rows
    rows = buffer_rows(snap, s.visible_names(), PanelsRecorder())
    assert set(CONTAINED_NAMES) <= {r.name for r in rows}
    # the parameters the session trains
    assert list(parameters_of(s.visible_names())) == CONTAINED_NAMES
    # builder workspace
    ws = describe(s.namespace, CONTAINED)
    assert "d['w']" in ws.tensors and "params[0]" in ws.tensors
    assert ws.tensors["model[0].weight"].graph_name == "model.0.weight"
    assert ws.optimizers["opt"].params == ("d['w']", "params[0]", "model[0].weight",
                                          "model[0].bias")
    # npz export
    assert list(gradient_buffers(s.namespace))[:4] == CONTAINED_NAMES


def test_aliases_bound_to_plain_names_keep_the_first_name_in_every_consumer():
    s = _finished(SCRIPT)
    snap = s.snapshot()
    assert "w" in snap.tensors and "d['w']" not in snap.tensors and "params[0]" not in snap.tensors
    assert s.graph().nodes["t:w"]["aliases"] == ["d['w']", "params[0]",
                                                "opt.param_groups[0]['params'][0]"]
    assert list(capture_state(s.namespace).tensors)[:2] == ["w", "b"]


def test_nan_breakpoint_names_a_tensor_kept_in_a_dict():
    s = Session(NAN_IN_DICT)
    events = []
    s.subscribe(events.append)
    s.break_on_nan(True)
    s.continue_()
    assert s.status == "paused" and s.position.line == 4
    reason = [e for e in events if e.kind == "paused"][-1].reason
    assert "NaN/Inf in d['w']" in reason, reason
    s.continue_()
    assert s.status == "finished"


def test_a_saved_gstep_file_restores_tensors_kept_in_containers(tmp_path):
    s = _finished(CONTAINED)
    state = capture_state(s.namespace, iteration=1)
    assert list(state.tensors) == CONTAINED_NAMES + ["x", "loss"]
    saved_opt = state.optimizers["opt"]
    assert saved_opt.param_groups[0]["params"] == CONTAINED_NAMES
    assert set(saved_opt.state) == set(CONTAINED_NAMES)
    path = tmp_path / "contained.gstep"
    save(path, GraphFile(script=CONTAINED, state=state))
    loaded = load(path)
    assert list(loaded.state.tensors) == CONTAINED_NAMES + ["x", "loss"]
    np.testing.assert_array_equal(loaded.state.tensors["d['w']"].value,
                                  s.namespace["d"]["w"].detach().numpy())
    np.testing.assert_array_equal(loaded.state.tensors["d['w']"].grad,
                                  s.namespace["d"]["w"].grad.numpy())

    # restored into a fresh run of the script: in place, under the same names
    fresh = engine.script.run(CONTAINED.split("for i")[0])
    assert restore_state(fresh, loaded.state) == ["loss"]  # made by the loop only
    np.testing.assert_array_equal(fresh["d"]["w"].detach().numpy(),
                                  loaded.state.tensors["d['w']"].value)
    momentum = fresh["opt"].state[fresh["params"][0]]["momentum_buffer"]
    np.testing.assert_array_equal(momentum.numpy(),
                                  loaded.state.optimizers["opt"].state["params[0]"]
                                  ["momentum_buffer"])

    # and resumed by a session: the snapshot shows the saved values under the same names
    resumed = Session(CONTAINED, resume=loaded.state)
    events = []
    resumed.subscribe(events.append)
    resumed.continue_()
    assert resumed.status == "paused"
    assert [e for e in events if e.kind == "paused"][-1].reason == "resumed at iteration 1"
    assert [w for w in resumed.warnings if w.kind == "resume"] == []
    snap = resumed.snapshot()
    for name in CONTAINED_NAMES:
        np.testing.assert_array_equal(snap.tensors[name].value, loaded.state.tensors[name].value)
    assert resumed.snapshot().optimizer[("opt", "d['w']", "momentum_buffer")] is not None


def test_a_module_attribute_tensor_and_a_user_module():
    source = """\
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor([2.0]))
        self.fc = torch.nn.Linear(1, 1)
    def forward(self, x):
        return self.fc(x) * self.scale
net = Net()
loss = net(torch.tensor([[1.0]])).sum()
loss.backward()
"""
    s = _finished(source)
    assert {"net.scale", "net.fc.weight", "net.fc.bias"} <= set(s.snapshot().tensors)
    assert {"t:net.scale", "t:net.fc.weight"} <= set(s.graph().nodes)
    assert {"net.scale", "net.fc.weight"} <= set(capture_state(s.namespace).tensors)
    assert s.graph().nodes["t:net.fc.weight"]["group"] == "net.fc"


@pytest.mark.parametrize("consumer", ["graph", "session", "files", "npz", "builder"])
def test_no_consumer_calls_a_look_alikes_methods(consumer):
    class Trap:
        param_groups = [{"params": [engine.ones(1)]}]
        state: dict = {}

        def named_parameters(self):
            raise AssertionError("user code ran")

        def step(self):
            raise AssertionError("user code ran")

    ns = {"trap": Trap(), "w": engine.ones(1, requires_grad=True)}
    if consumer == "graph":
        assert [a["name"] for _, a in build_graph(ns).nodes(data=True)] == ["w"]
    elif consumer == "session":
        assert list(session_named_tensors(ns)) == ["w"]
    elif consumer == "files":
        state = capture_state(ns)
        assert list(state.tensors) == ["w"] and state.optimizers == {}
    elif consumer == "npz":
        assert gradient_buffers(ns) == {}
    else:
        ws = describe(ns)
        assert list(ws.tensors) == ["w"] and ws.optimizers == {} and ws.modules == {}
