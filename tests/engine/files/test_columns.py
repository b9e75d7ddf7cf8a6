"""Format version 2's column-wise recorded graph: a round trip keeps every bit, the file is
compact, and each way a table can be wrong is one error naming its column and row."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import engine.files as F
from engine.record.synthetic import synthetic_recorded
from engine.record.writer import graph_file


@pytest.fixture(scope="module")
def recorded_file():
    rec = synthetic_recorded(200, iterations=2)
    rec.nodes[1].attrs["odd"] = {"nested": [1, 2.5, None, "x"]}  # free-form JSON survives
    rec.nodes[1].attrs["flag"] = True  # not the level of 1
    rec.nodes[2].attrs["flag"] = 1
    rec.nodes[2].value = np.arange(6, dtype=np.int16).reshape(2, 3)
    rec.nodes[3].grad = np.array(True)
    rec.nodes[4].grad = np.zeros((0, 3))
    rec.nodes[5].grad = np.array([np.nan, -0.0, np.inf], np.float32)
    return graph_file(rec)


def test_round_trip_is_exact_and_version_2(recorded_file):
    text = F.dumps(recorded_file)
    doc = json.loads(text)
    assert doc["version"] == 2 and isinstance(doc["recorded"]["nodes"], dict)
    back = F.loads(text)
    assert back == recorded_file and back.version == 2
    assert back.recorded.nodes[1].attrs["flag"] is True and back.recorded.nodes[2].attrs[
        "flag"] == 1 and type(back.recorded.nodes[2].attrs["flag"]) is int
    assert back.recorded.nodes[3].grad.shape == () and back.recorded.nodes[3].grad.dtype == bool
    assert F.dumps(back) == text  # the writer's own layout


def test_a_file_without_a_recording_stays_version_1():
    doc = json.loads(F.dumps(F.GraphFile(script="x = 1\n")))
    assert doc["version"] == 1


def test_version_1_recordings_still_read():
    doc = {"format": "gradstep", "version": 1, "script": "",
           "recorded": {"nodes": [{"id": "t", "kind": "tensor", "label": "w",
                                   "value": {"dtype": "float32", "shape": [1], "data": [2.0]}},
                                  {"id": "f", "kind": "function", "label": "MulBackward0"}],
                        "edges": [{"source": "t", "target": "f"}], "leaves": ["t"]}}
    gf = F.loads(json.dumps(doc))
    assert [n.id for n in gf.recorded.nodes] == ["t", "f"] and gf.recorded.leaves == ["t"]
    assert gf.recorded.edges[0].source == "t" and gf.recorded.nodes[0].value[0] == 2.0


def test_a_big_recording_is_compact():
    text = F.dumps(graph_file(synthetic_recorded(5000)))
    assert len(text) < 5000 * 200  # version 1 took ~830 bytes a node


def _ints(values, dtype="int32"):
    return {"dtype": dtype, "shape": [len(values)], "data": list(values)}


def _broken(recorded_file, change):
    doc = json.loads(F.dumps(recorded_file))
    change(doc["recorded"])
    with pytest.raises(F.GraphFileError) as err:
        F.loads(json.dumps(doc))
    return err.value


@pytest.mark.parametrize("change, field, words", [
    (lambda r: r["nodes"]["id"].__setitem__(7, r["nodes"]["id"][3]), "recorded.nodes.id[7]",
     "used twice"),
    (lambda r: r["nodes"]["id"].__setitem__(2, ""), "recorded.nodes.id[2]", "non-empty"),
    (lambda r: r["edges"].__setitem__("source", _ints([0] * 3)), "recorded.edges.target",
     "entries for 3 rows"),
    (lambda r: r["edges"].__setitem__(
        "target", _ints([999] + [0] * (_decoded(r["edges"]["source"]).size - 1))),
     "recorded.edges.target[0]", "not an index below"),
    (lambda r: r["nodes"]["kind"].update(levels=["tensor", "op", "function"]),
     "recorded.nodes.kind[", "expected one of"),
    (lambda r: r["nodes"]["attrs"].__setitem__("x", {"levels": ["a"], "codes": _ints([5] * len(
        r["nodes"]["id"]))}), "recorded.nodes.attrs.x.codes[0]", "not an index below 1"),
    (lambda r: r["nodes"]["attrs"].__setitem__("x", {"values": [1, 2]}),
     "recorded.nodes.attrs.x.values", "2 values for"),
    (lambda r: r["nodes"]["attrs"].__setitem__("x", {"rows": _ints([3, 1]), "values": [1, 2]}),
     "recorded.nodes.attrs.x.rows[1]", "ascending"),
    (lambda r: r["nodes"]["attrs"].__setitem__("x", {"values": [1e999] * len(
        r["nodes"]["id"])}), "recorded.nodes.attrs.x.values[0]", "Infinity (not valid JSON"),
    (lambda r: r["nodes"]["grad"]["data"].__setitem__(
        "float32", {"dtype": "float32", "shape": [1], "data": [0.0]}),
     "recorded.nodes.grad.data.float32", "expected"),
    (lambda r: r["leaves"].update(_ints([3])), "recorded.leaves[0]", "not a tensor node"),
])
def test_a_broken_table_names_its_column_and_row(recorded_file, change, field, words):
    error = _broken(recorded_file, change)
    assert error.field.startswith(field) and words in error.message, (error.field, error.message)


def _decoded(array_doc):
    return F.codec.decode_array(array_doc, "x", max_elements=10**7)


def test_a_nan_literal_in_a_column_is_named(recorded_file):
    doc = json.loads(F.dumps(recorded_file))
    doc["recorded"]["nodes"]["attrs"]["x"] = {"values": [0] * len(doc["recorded"]["nodes"]["id"])}
    text = json.dumps(doc).replace('"x": {"values": [0,', '"x": {"values": [NaN,')
    with pytest.raises(F.GraphFileError) as err:
        F.loads(text)
    assert err.value.field == "recorded.nodes.attrs.x.values[0]"


def test_a_duplicate_key_in_a_column_value_is_named(recorded_file):
    doc = json.loads(F.dumps(recorded_file))
    n = len(doc["recorded"]["nodes"]["id"])
    doc["recorded"]["nodes"]["attrs"]["x"] = {"values": [{"k": 1}] * n}
    text = json.dumps(doc).replace('{"k": 1}', '{"k": 1, "k": 2}', 1)
    with pytest.raises(F.GraphFileError) as err:
        F.loads(text)
    assert err.value.field == 'recorded.nodes.attrs.x.values[0].k' and "more than once" in \
        err.value.message


def test_copy_is_independent(recorded_file):
    other = copy.deepcopy(recorded_file)
    other.recorded.nodes[0].attrs["name"] = "changed"
    assert other != recorded_file
