"""The malformed-file corpus: every bad file gives one GraphFileError that names the field
(or the line and column), and nothing else escapes."""

import codecs
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.files as F
from engine.files import GraphFileError, load, loads

SCRIPT = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\n"


def doc(**fields):
    base = {"format": "gradstep", "version": 1, "script": SCRIPT}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not DROP}


DROP = object()


def text(**fields):
    return json.dumps(doc(**fields))


def tensor(**overrides):
    t = {"value": {"dtype": "float32", "shape": [2], "data": [1.0, 2.0]}, "requires_grad": True}
    t.update(overrides)
    return t


VALID = json.dumps(doc(title="ok", breakpoints=[{"line": 2}],
                       state={"tensors": {"x": tensor()}}), indent=2)

# the file's own object is level 1, so the 64th '{"a": ' is the 65th level
DEEP = ('{"format": "gradstep", "version": 1, "script": "", "metadata": '
        + '{"a": ' * 100000 + "1" + "}" * 100001)

# (case id, file contents (str or bytes), field path or (line, col), a fragment of the message)
CORPUS = [
    ("empty", "", (1, 1), "empty"),
    ("whitespace only", "  \n\n", (1, 1), "empty"),
    ("truncated", VALID[: len(VALID) // 2], None, "truncated"),
    ("syntax error", '{"format": "gradstep",, "version": 1}', (1, 23), "invalid JSON"),
    ("single quotes", "{'format': 'gradstep'}", (1, 2), "invalid JSON"),
    ("trailing garbage", VALID + "\n}", (VALID.count("\n") + 2, 1), "invalid JSON"),
    ("top level list", "[1, 2]", "top level", "got a list"),
    ("top level string", '"gradstep"', "top level", 'got "gradstep"'),
    ("not a gradstep file", text(format="jupyter"), "format", "not a gradstep file"),
    ("missing format", text(format=DROP), "format", "missing required field"),
    ("missing version", text(version=DROP), "version", "missing required field"),
    ("version as string", text(version="1"), "version", 'expected an integer, got "1"'),
    ("newer version", text(version=7, brand_new_field=1), "version",
     "this file was written by a newer gradstep (format version 7); this version reads up to 2"),
    ("version zero", text(version=0), "version", "unknown format version 0"),
    ("missing script", text(script=DROP), "script", "missing required field"),
    ("script not a string", text(script=["x = 1"]), "script", "expected a string, got a list"),
    ("unknown field", text(colour="red"), "colour", "unknown field"),
    ("title a number", text(title=3), "title", "expected a string, got 3"),
    ("breakpoints an object", text(breakpoints={"line": 1}), "breakpoints",
     "expected a list, got an object"),
    ("breakpoint line a string",
     text(breakpoints=[{"line": 1}, {"line": 2}, {"line": "x"}]), "breakpoints[2].line",
     'expected an integer, got "x"'),
    ("breakpoint line zero", text(breakpoints=[{"line": 0}]), "breakpoints[0].line", ">= 1"),
    ("breakpoint past the end", text(breakpoints=[{"line": 40}]), "breakpoints[0].line",
     "past the end of the script (3 lines)"),
    ("breakpoint twice", text(breakpoints=[{"line": 2}, {"line": 2}]), "breakpoints[1].line",
     "already set by breakpoints[0]"),
    ("breakpoint enabled yes", text(breakpoints=[{"line": 2, "enabled": "yes"}]),
     "breakpoints[0].enabled", 'expected true or false, got "yes"'),
    ("breakpoint without line", text(breakpoints=[{"condition": "x > 1"}]),
     "breakpoints[0].line", "missing required field"),
    ("data breakpoint flag a number", text(data_breakpoints={"nan": 1}),
     "data_breakpoints.nan", "expected true or false, got 1"),
    ("negative grad norm", text(data_breakpoints={"grad_norm": -1}),
     "data_breakpoints.grad_norm", "positive"),
    ("seed a float", text(settings={"seed": 1.5}), "settings.seed", "expected an integer"),
    ("unknown limit", text(settings={"limits": {"max_fun": 3}}), "settings.limits.max_fun",
     "unknown field"),
    ("zero limit", text(settings={"limits": {"max_statements": 0}}),
     "settings.limits.max_statements", ">= 1"),
    ("zoom zero", text(view={"zoom": 0}), "view.zoom", "positive"),
    ("zoom overflowing to inf", '{"format": "gradstep", "version": 1, "script": "", '
     '"view": {"zoom": 1e999}}', "view.zoom", "finite"),
    ("position of one number", text(view={"positions": {"n1": [1]}}), "view.positions.n1",
     "expected [x, y]"),
    ("position with odd id", text(view={"positions": {"t 1": [1, "a"]}}),
     'view.positions["t 1"][1]', 'expected a number, got "a"'),
    ("folded twice", text(view={"folded": ["net", "net"]}), "view.folded[1]", "listed twice"),
    ("note key not a line", text(notes={"abc": "hi"}), 'notes["abc"]', "line number"),
    ("note past the end", text(notes={"99": "hi"}), 'notes["99"]', "past the end"),
    ("note not text", text(notes={"1": 5}), 'notes["1"]', "expected a string"),
    ("state without tensors", text(state={"iteration": 3}), "state.tensors",
     "missing required field"),
    ("negative iteration", text(state={"iteration": -1, "tensors": {}}), "state.iteration",
     ">= 0"),
    ("complex dtype", text(state={"tensors": {"x": tensor(value={
        "dtype": "complex64", "shape": [1], "data": [1]})}}), "state.tensors.x.value.dtype",
     'got "complex64"'),
    ("data shorter than shape", text(state={"tensors": {"x": tensor(value={
        "dtype": "float32", "shape": [3], "data": [1.0]})}}), "state.tensors.x.value.data",
     "1 elements for shape [3]"),
    ("oversized array", text(state={"tensors": {"x": tensor(value={
        "dtype": "float32", "shape": [100000, 100000], "data": []})}}),
     "state.tensors.x.value.shape", "larger than the limit"),
    ("misspelled nan", text(state={"tensors": {"x": tensor(value={
        "dtype": "float32", "shape": [2], "data": [1.0, "nann"]})}}),
     "state.tensors.x.value.data[1]", '"nann"'),
    ("NaN literal in data", '{"format": "gradstep", "version": 1, "script": "", "state": '
     '{"tensors": {"x": {"value": {"dtype": "float32", "shape": [2], "data": [1.0, NaN]}}}}}',
     "state.tensors.x.value.data[1]", 'not valid JSON; inside array data write the string "nan"'),
    ("Infinity literal as zoom", '{"format": "gradstep", "version": 1, "script": "", '
     '"view": {"zoom": Infinity}}', "view.zoom", "Infinity"),
    ("NaN literal in metadata", '{"format": "gradstep", "version": 1, "script": "", '
     '"metadata": {"score": NaN}}', "metadata.score", "NaN"),
    ("grad of another shape", text(state={"tensors": {"x": tensor(grad={
        "dtype": "float32", "shape": [3], "data": [1.0, 2.0, 3.0]})}}),
     "state.tensors.x.grad", "shape [3] for a float32 value of shape [2]"),
    ("int tensor requiring grad", text(state={"tensors": {"x": tensor(value={
        "dtype": "int64", "shape": [1], "data": [1]})}}), "state.tensors.x.requires_grad",
     "only floating point tensors"),
    ("optimizer of an unknown tensor", text(state={"tensors": {"x": tensor()}, "optimizers": {
        "opt": {"type": "SGD", "param_groups": [{"params": ["x", "w"], "lr": 0.1}]}}}),
     "state.optimizers.opt.param_groups[0].params[1]", 'no tensor "w"'),
    ("optimizer state a string", text(state={"tensors": {"x": tensor()}, "optimizers": {
        "opt": {"type": "SGD", "state": {"x": {"momentum_buffer": "big"}}}}}),
     "state.optimizers.opt.state.x.momentum_buffer", 'expected an integer, got "big"'),
    ("edge to a missing node", text(recorded={"nodes": [{"id": "a", "kind": "tensor"}],
                                              "edges": [{"source": "a", "target": "b"}]}),
     "recorded.edges[0].target", 'no node with id "b"'),
    ("node kind unknown", text(recorded={"nodes": [{"id": "a", "kind": "op"}], "edges": []}),
     "recorded.nodes[0].kind", 'got "op"'),
    ("leaf that is a function", text(recorded={
        "nodes": [{"id": "f", "kind": "function"}], "edges": [], "leaves": ["f"]}),
     "recorded.leaves[0]", "not the id of a tensor node"),
    ("metadata a list", text(metadata=[1]), "metadata", "expected an object"),
    ("duplicate top-level key", '{"format": "gradstep", "version": 1, "script": "a = 1", '
     '"script": "b = 2"}', "script", "more than once"),
    ("duplicate nested key", '{"format": "gradstep", "version": 1, "script": "a = 1", '
     '"breakpoints": [{"line": 1, "line": 1}]}', "breakpoints[0].line", "more than once"),
    ("lone surrogate", '{"format": "gradstep", "version": 1, "script": "", "title": "\\ud800"}',
     "title", "surrogate"),
    ("deeply nested", DEEP, (1, DEEP.index("{", 1) + 6 * 63 + 1),
     "nested more than 64 levels"),
    ("deeply nested list", "[" * 5000 + "]" * 5000, (1, 65), "nested more than 64 levels"),
    ("UTF-16 with BOM", codecs.BOM_UTF16_LE + text().encode("utf-16-le"), (1, 1), "UTF-16"),
    ("UTF-16 without BOM", text().encode("utf-16-le"), (1, 2), "UTF-16 or binary"),
    ("UTF-32", codecs.BOM_UTF32_LE + text().encode("utf-32-le"), (1, 1), "UTF-32"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", (3, 1), "not a text file"),
    ("integer with 5000 digits", '{"format": "gradstep", "version": 1, "script": "' + "1" * 5000
     + '",\n "title": ' + "1" * 5000 + "}", (2, 11), "thousands of digits"),
    ("huge integer as zoom", '{"format": "gradstep", "version": 1, "script": "", '
     '"view": {"zoom": ' + "9" * 400 + "}}", "view.zoom", "huge integer"),
    ("huge integer in float data", text(state={"tensors": {"x": tensor(value={
        "dtype": "float64", "shape": [1], "data": [10 ** 400]})}}),
     "state.tensors.x.value.data[0]", "out of range for float64"),
    ("a file raising its own statement limit", text(settings={"limits": {
        "max_statements": 10**18}}), "settings.limits.max_statements", "<= 5000000"),
    ("a file raising its own memory limit", text(settings={"limits": {
        "max_total_bytes": 2**40}}), "settings.limits.max_total_bytes", f"<= {2**30}"),
    ("latin-1 text", '{"format": "gradstep", "version": 1,\n "title": "caf\u00e9"}'.encode(
        "latin-1"), (2, 15), "not valid UTF-8 (byte 0xe9)"),
]


def test_the_corpus_is_large_and_distinct():
    assert len(CORPUS) >= 25
    assert len({case[0] for case in CORPUS}) == len(CORPUS)
    assert len({case[1] for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("contents, where, fragment", [c[1:] for c in CORPUS],
                         ids=[c[0] for c in CORPUS])
def test_malformed_file_gives_one_clear_error(contents, where, fragment, tmp_path):
    path = tmp_path / "bad.gstep"
    path.write_bytes(contents if isinstance(contents, bytes) else contents.encode("utf-8"))
    with pytest.raises(GraphFileError) as info:
        load(path)
    error = info.value
    if isinstance(where, str):
        assert error.field == where, str(error)
        assert str(error) == f"{path}: {where}: {error.message}"
    elif where is not None:
        assert (error.line, error.col) == where, str(error)
        assert f"line {where[0]}, column {where[1]}" in str(error)
    assert fragment in error.message, str(error)
    assert error.filename == str(path)


def test_truncated_file_reports_where_it_ends():
    truncated = VALID[:-2]
    with pytest.raises(GraphFileError) as info:
        loads(truncated)
    assert info.value.line == truncated.count("\n") + 1
    assert "truncated" in info.value.message


def test_a_utf8_bom_is_accepted():
    gf = loads(codecs.BOM_UTF8 + VALID.encode())
    assert gf.title == "ok"
    assert loads("\ufeff" + VALID).title == "ok"


def test_the_valid_base_document_loads():
    # the corpus is only meaningful if its starting point is accepted
    gf = loads(VALID)
    assert gf.script == SCRIPT and [b.line for b in gf.breakpoints] == [2]
    assert gf.state.tensors["x"].value.tolist() == [1.0, 2.0]


EXAMPLE_BYTES = [p.read_bytes() for p in F.example_paths()]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EXAMPLE_BYTES), st.lists(
    st.tuples(st.sampled_from(["cut", "flip", "insert", "delete"]), st.floats(0, 1),
              st.binary(min_size=1, max_size=3)), min_size=1, max_size=4))
def test_damaged_examples_give_graph_file_errors_only(original, damage):
    data = bytearray(original)
    for kind, where, junk in damage:
        i = int(where * (len(data) - 1))
        if kind == "cut":
            del data[i:]
        elif kind == "flip":
            data[i] ^= junk[0] or 1
        elif kind == "insert":
            data[i:i] = junk
        else:
            del data[i:i + len(junk) * 7]
        if not data:
            break
    try:
        loads(bytes(data))
    except GraphFileError as e:
        assert e.message and (e.field or e.line or "empty" in e.message or "nested" in e.message)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(
                        ["format", "version", "script", "breakpoints", "line", "state", "tensors",
                         "value", "dtype", "shape", "data", "view", "zoom", "notes", "1"]),
                        inner, max_size=4), max_leaves=20))
def test_arbitrary_json_gives_graph_file_errors_only(value):
    doc = {"format": "gradstep", "version": 1, "script": "a\nb\n"}
    if isinstance(value, dict):
        doc.update(value)
    try:
        loads(json.dumps(doc))
    except GraphFileError as e:
        assert e.field or e.line
