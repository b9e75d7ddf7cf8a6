"""resources/gstep.schema.json describes exactly what the reader accepts.

No jsonschema package here: a small checker for the keywords the schema uses (below) validates
the examples against it, and the schema's field lists are compared with the reader's.
"""

import json
import re
from pathlib import Path

import pytest

import engine.files as F
from engine.files import codec, columns, validate
from engine.files.format import LIMIT_NAMES

RESOURCES = Path(__file__).resolve().parents[3] / "resources"
SCHEMA = json.loads((RESOURCES / "gstep.schema.json").read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]

TYPES = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
KNOWN_KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "title", "description", "default", "type", "properties",
    "required", "additionalProperties", "propertyNames", "items", "enum", "const", "minimum",
    "exclusiveMinimum", "minLength", "minItems", "maxItems", "uniqueItems", "oneOf", "pattern",
}


def errors(value, schema, path="$"):
    """Every way ``value`` breaks ``schema`` (an empty list when it conforms)."""
    if "$ref" in schema:
        return errors(value, DEFS[schema["$ref"].split("/")[-1]], path)
    out = []
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(TYPES[t](value) for t in types):
            return [f"{path}: not {types}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: != const")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: not in enum")
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: < minimum")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            out.append(f"{path}: <= exclusiveMinimum")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: does not match pattern")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1e9):
            out.append(f"{path}: wrong length")
        if schema.get("uniqueItems") and len(set(map(json.dumps, value))) != len(value):
            out.append(f"{path}: items not unique")
        for i, item in enumerate(value):
            out += errors(item, schema.get("items", {}), f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out += [f"{path}.{k}: required" for k in schema.get("required", []) if k not in value]
        for key, item in value.items():
            if "propertyNames" in schema:
                out += errors(key, schema["propertyNames"], f"{path} key {key}")
            if key in props:
                out += errors(item, props[key], f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{path}.{key}: not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(item, schema["additionalProperties"], f"{path}.{key}")
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not errors(value, s, path)]
        if len(matching) != 1:
            out.append(f"{path}: matches {len(matching)} of oneOf")
    return out


def walk(schema):
    yield schema
    for value in schema.values():
        if isinstance(value, dict):
            yield from walk(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from walk(item)


def test_the_checker_only_meets_keywords_it_understands():
    for node in walk(SCHEMA):
        parent_is_properties = any(node is p.get("properties") or node is p.get("$defs")
                                   for p in walk(SCHEMA))
        if not parent_is_properties:
            assert set(node) <= KNOWN_KEYWORDS, set(node) - KNOWN_KEYWORDS


def test_schema_is_versioned_and_documented():
    assert SCHEMA["properties"]["version"]["enum"] == list(range(1, F.FORMAT_VERSION + 1))
    assert SCHEMA["properties"]["format"]["const"] == F.FORMAT_NAME
    assert "docs/gstep-format.md" in SCHEMA["description"]
    for name, prop in SCHEMA["properties"].items():
        assert "description" in prop or "$ref" in prop or "oneOf" in prop, name


@pytest.mark.parametrize("schema_path, fields, required", [
    ((), validate.TOP_LEVEL_FIELDS, validate.REQUIRED_TOP_LEVEL),
    (("breakpoint",), validate.BREAKPOINT_FIELDS, ("line",)),
    (("data_breakpoints",), validate.DATA_BREAKPOINT_FIELDS, ()),
    (("settings",), validate.SETTINGS_FIELDS, ()),
    (("limits",), LIMIT_NAMES, ()),
    (("view",), validate.VIEW_FIELDS, ()),
    (("array",), codec.ARRAY_KEYS, ("dtype", "shape")),
    (("state",), validate.STATE_FIELDS, ("tensors",)),
    (("tensor",), validate.TENSOR_FIELDS, ("value",)),
    (("optimizer",), validate.OPTIMIZER_FIELDS, ("type",)),
    (("recorded",), validate.RECORDED_FIELDS, ("nodes", "edges")),
    (("recorded_node",), validate.RECORDED_NODE_FIELDS, ("id", "kind")),
    (("recorded_edge",), validate.RECORDED_EDGE_FIELDS, ("source", "target")),
    (("recorded_table",), validate.RECORDED_FIELDS, ("nodes", "edges")),
    (("node_table",), columns.NODE_COLUMNS, ("id", "kind")),
    (("edge_table",), columns.EDGE_COLUMNS, ("source", "target")),
    (("tensor_table",), columns.TENSOR_COLUMNS, ("name", "value")),
    (("iteration_table",), validate.STATE_FIELDS, ("tensors",)),
    (("column",), columns.COLUMN_KEYS, ()),
    (("array_column",), columns.ARRAY_COLUMN_KEYS, columns.ARRAY_COLUMN_KEYS),
])
def test_schema_fields_are_exactly_the_readers(schema_path, fields, required):
    schema = DEFS[schema_path[0]] if schema_path else SCHEMA
    assert set(schema["properties"]) == set(fields)
    assert set(schema.get("required", [])) == set(required)
    assert schema["additionalProperties"] is False


def test_schema_enums_are_the_readers():
    assert DEFS["array"]["properties"]["dtype"]["enum"] == list(codec.DTYPES)
    assert DEFS["recorded_node"]["properties"]["kind"]["enum"] == list(validate.NODE_KINDS)


def test_limits_are_the_interpreters_limits():
    script = pytest.importorskip("engine.script", reason="engine.script not there yet")
    limits = getattr(script, "Limits", None)
    if limits is None:
        pytest.skip("engine.script.Limits not written yet")
    assert set(LIMIT_NAMES) == set(limits.__dataclass_fields__)


@pytest.mark.parametrize("path", sorted((RESOURCES / "examples").glob("*.gstep")),
                         ids=lambda p: p.stem)
def test_examples_conform_to_the_schema(path):
    assert errors(json.loads(path.read_text(encoding="utf-8")), SCHEMA) == []


def test_a_full_file_conforms_to_the_schema():
    import numpy as np

    gf = F.GraphFile(
        script="a = 1\nb = 2\n", breakpoints=[F.Breakpoint(2, "a > 0", False)],
        data_breakpoints=F.DataBreakpoints(True, 10.0, True, True, True),
        settings=F.Settings(3, {"max_statements": 100}),
        view=F.ViewState({"n1": (1.0, 2.0)}, ["net"], 2.0, (0.0, 0.0)), notes={1: "x"},
        state=F.SavedState(2, {"w": F.SavedTensor(np.ones(2, np.float32), np.zeros(2, np.float32),
                                                  True)},
                           {"opt": F.SavedOptimizer("Adam", [{"params": ["w"], "lr": 0.1}],
                                                    {"w": {"step": 3,
                                                           "exp_avg": np.ones(2, np.float32)}})}),
        recorded=F.Recorded([F.RecordedNode("t", "tensor", "w", {"shape": [2]}, np.ones(2)),
                             F.RecordedNode("f", "function", "MulBackward0")],
                            [F.RecordedEdge("t", "f", np.ones(2))], ["t"]),
        metadata={"anything": [1, {"goes": None}]})
    doc = json.loads(F.dumps(gf))
    assert errors(doc, SCHEMA) == []
    assert F.loads(F.dumps(gf)) == gf


@pytest.mark.parametrize("bad", [
    {"format": "gradstep", "version": F.FORMAT_VERSION + 1, "script": ""},
    {"format": "gradstep", "version": 1},
    {"format": "gradstep", "version": 1, "script": "", "extra": 1},
    {"format": "gradstep", "version": 1, "script": "", "breakpoints": [{"line": "x"}]},
    {"format": "gradstep", "version": 1, "script": "", "notes": {"0": "zero"}},
])
def test_documents_the_reader_refuses_break_the_schema_too(bad):
    assert errors(bad, SCHEMA)
    with pytest.raises(F.GraphFileError):
        F.loads(json.dumps(bad))
