"""Recorded files: a round trip through save/load keeps every bit, and the reader checks the
per-iteration states like the top-level one."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# torch's thread pool spins for milliseconds per op when the cores are busy (shared machine)
torch.set_num_threads(1)

import engine.files as files
import engine.record as record
from tests.engine.record.snippets import SNIPPETS

pytestmark = pytest.mark.torch


def _recorded(snippet: str):
    root, source = SNIPPETS[snippet]
    ns = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional,
          "Variable": torch.autograd.Variable}
    exec(source, ns)
    return record.record_backward(ns[root], names=ns)


def _same_graph(a, b) -> None:
    assert list(a.nodes) == list(b.nodes)
    assert list(a.edges) == list(b.edges)
    assert dict(a.graph) == dict(b.graph)
    for n, attrs in a.nodes(data=True):
        other = b.nodes[n]
        assert set(attrs) == set(other), n
        for key, value in attrs.items():
            if isinstance(value, np.ndarray) or isinstance(other[key], np.ndarray):
                assert value.dtype == other[key].dtype and value.shape == other[key].shape
                assert value.tobytes() == other[key].tobytes(), (n, key)
            elif key == "saved_values":
                assert value.keys() == other[key].keys()
                for role in value:
                    assert value[role].tobytes() == other[key][role].tobytes()
            else:
                assert value == other[key], (n, key)
    for u, v, e in a.edges(data=True):
        f = b.edges[u, v]
        assert (e["grad"] is None) == (f["grad"] is None)
        if e["grad"] is not None:
            assert e["grad"].tobytes() == f["grad"].tobytes() and e["grad"].dtype == f["grad"].dtype


@pytest.mark.parametrize("snippet", ["seed_demo", "mlp_mse", "fan_out", "in_place_slice"])
def test_round_trip_through_a_file_keeps_every_bit(tmp_path, snippet):
    recorded = _recorded(snippet)
    path = tmp_path / "run.gstep"
    written = record.write(path, recorded, title=snippet)
    loaded = files.load(path)
    assert loaded == written
    assert record.is_recorded(loaded)
    assert loaded.metadata[record.METADATA_KEY]["torch_version"] == torch.__version__
    _same_graph(record.recorded_graph(recorded), record.recorded_graph(path))
    assert [s.node_id for s in record.replay_steps(path)] == \
        [s.node_id for s in record.replay_steps(recorded)]


def test_a_nan_survives_the_round_trip(tmp_path):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    out = (x.log() * 0).sum()  # log(0) * 0 = nan: where the NaN starts is what one records for
    path = tmp_path / "nan.gstep"
    record.record_backward(out, path, names={"x": x, "out": out})
    g = record.recorded_graph(path)
    assert np.isnan(g.nodes["t:out"]["value"])
    assert np.isnan(g.nodes["t:x"]["grad"][0])


def _file_with_iterations(tmp_path):
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    path = tmp_path / "train.gstep"
    with record.session(path, model=model, optimizer=opt):
        for _ in range(2):
            opt.zero_grad()
            model(torch.ones(3, 2)).pow(2).mean().backward()
            opt.step()
    return path


def test_iterations_round_trip(tmp_path):
    path = _file_with_iterations(tmp_path)
    gf = files.load(path)
    assert len(gf.recorded.iterations) == 2
    assert files.loads(files.dumps(gf)) == gf
    state = gf.recorded.iterations[1]
    assert state.optimizers["optimizer"].type == "SGD"
    assert set(state.optimizers["optimizer"].state) == {"weight", "bias"}
    assert gf.state is None  # not repeated: the last iteration is recorded.iterations[-1]


def test_a_bad_iteration_is_reported_with_its_field_path(tmp_path):
    doc = json.loads(_file_with_iterations(tmp_path).read_text())
    table = doc["recorded"]["iterations"][1]["tensors"]  # format version 2: column-wise
    row = table["name"].index("weight")

    def ints(values, dtype="int32"):
        return {"dtype": dtype, "shape": [len(values)], "data": values}

    # a grad of 5 elements for a (2, 3) weight
    table["grad"] = {"rows": ints([row]), "dtype": ints([1], "uint8"), "ndim": ints([1], "uint8"),
                     "dims": ints([5], "int64"),
                     "data": {"float32": {"dtype": "float32", "shape": [5], "data": [0] * 5}}}
    with pytest.raises(files.GraphFileError) as err:
        files.loads(json.dumps(doc))
    assert err.value.field == "recorded.iterations[1].tensors.weight.grad"
    assert "shape [5]" in err.value.message
    doc["recorded"]["iterations"] = {"not": "a list"}
    with pytest.raises(files.GraphFileError) as err:
        files.loads(json.dumps(doc))
    assert err.value.field == "recorded.iterations"
