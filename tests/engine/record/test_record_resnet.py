"""Recording ResNet-sized graphs built from plain layers: thousands of nodes, module groups to
fold, files within the format's limits."""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# torch's thread pool spins for milliseconds per op when the cores are busy (shared machine)
torch.set_num_threads(1)

import engine.files as files
import engine.record as record
from engine.graph import fold, layout
from tests.engine.record.plain_resnet import deep_resnet, resnet18

pytestmark = [pytest.mark.torch, pytest.mark.slow]


def _train_one_step(model, path):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.linspace(-1, 1, 3 * 32 * 32).reshape(1, 3, 32, 32)
    with record.session(path, model=model, optimizer=opt) as rec:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), torch.tensor([3]))
        loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters()}
        opt.step()
    return rec, grads


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("deep") / "deep.gstep"
    rec, grads = _train_one_step(deep_resnet(), path)
    return record.recorded_graph(path), grads, path


def test_thousands_of_nodes_recorded(deep):
    graph, _, _ = deep
    assert graph.number_of_nodes() > 1000
    labels = {a["label"] for _, a in graph.nodes(data=True)}
    assert {"ConvolutionBackward0", "NativeBatchNormBackward0", "AddBackward0",
            "ReluBackward0", "AddmmBackward0"} <= labels


def test_module_groups_are_module_paths(deep):
    graph, _, _ = deep
    groups = {}
    for _, a in graph.nodes(data=True):
        if a["kind"] == "function":
            groups.setdefault(a["group"], []).append(a["label"])
    assert groups["layer1.0.conv1"] == ["ConvolutionBackward0"]
    assert groups["layer2.0.downsample.1"] == ["NativeBatchNormBackward0"]
    assert "AddBackward0" in groups["layer3.7"]  # the residual add belongs to its block
    assert graph.nodes["t:layer4.15.bn2.weight"]["group"] == "layer4.15.bn2"


def test_folding_a_stage_leaves_one_node_for_it(deep):
    graph, _, _ = deep
    folded = fold(graph, "layer2")
    members = folded.nodes["group:layer2"]["members"]
    assert not any(str(a.get("group") or "").startswith("layer2")
                   for _, a in folded.nodes(data=True) if a["kind"] != "group")
    assert len(members) == sum(1 for _, a in graph.nodes(data=True)
                               if str(a.get("group") or "").startswith("layer2"))
    assert folded.number_of_nodes() == graph.number_of_nodes() - len(members) + 1


def test_the_window_can_lay_it_out_with_its_module_boxes(deep):
    graph, _, _ = deep
    placed = layout(graph)
    assert set(placed.positions) == set(graph.nodes)
    assert {"layer1.0.conv1", "layer4.15", "fc"} <= set(placed.groups)
    x0, y0, x1, y1 = placed.groups["layer4.15"]
    inner = placed.groups["layer4.15.conv2"]
    assert x0 <= inner[0] and y0 <= inner[1] and inner[2] <= x1 and inner[3] <= y1


def test_parameter_grads_are_the_ones_torch_computed(deep):
    graph, grads, _ = deep
    for name in ("conv1.weight", "layer3.2.bn1.bias", "fc.weight"):
        np.testing.assert_array_equal(graph.nodes[f"t:{name}"]["grad"], grads[name].numpy())


def test_replay_marks_nodes_without_an_engine_twin(deep):
    graph, _, _ = deep
    steps = record.replay_steps(graph)
    assert len(steps) == graph.graph["backward_steps"]
    by_label = {s.node.name(): s.twin for s in steps}
    # a twin is a node the engine's op table makes (Conv2d and BatchNorm joined it since)
    from engine.record.replay import engine_node_names

    assert all(twin == (name in engine_node_names()) for name, twin in by_label.items())
    assert by_label["ConvolutionBackward0"] is ("ConvolutionBackward0" in engine_node_names())
    assert by_label["ReluBackward0"] is True
    assert by_label["torch::autograd::AccumulateGrad"] is True
    conv = next(s for s in steps if s.node.name() == "ConvolutionBackward0")
    assert conv.grads_in[0] is not None and any(g is not None for g in conv.grads_out)


def test_resnet18_file_stays_within_the_format_limits(tmp_path):
    torch.manual_seed(0)
    model = resnet18()
    path = tmp_path / "r18.gstep"
    rec, grads = _train_one_step(model, path)
    assert os.path.getsize(path) < files.DEFAULT_LIMITS.max_file_bytes
    graph = record.recorded_graph(path)
    # layer4's 3x3 convolutions hold 2.4 million weights: too many to keep, summarised instead
    big = graph.nodes["t:layer4.1.conv2.weight"]
    assert big["value"] is None
    exact = np.linalg.norm(grads["layer4.1.conv2.weight"].numpy().astype(np.float64))
    assert big["grad_stats"]["norm"] == pytest.approx(exact, rel=1e-9)
    np.testing.assert_array_equal(graph.nodes["t:fc.bias"]["grad"], grads["fc.bias"].numpy())
