"""Any GraphFile survives dumps -> loads unchanged (hypothesis-drawn contents)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine.files as F

# any text a user can type, minus lone surrogates (not encodable as UTF-8)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)
POINT = st.tuples(FINITE, FINITE)
ARRAY = hnp.arrays(st.sampled_from(["float32", "float64", "int64", "bool"]),
                   hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4))


@st.composite
def graph_files(draw):
    lines = draw(st.lists(TEXT.map(lambda s: s.replace("\n", " ").replace("\r", " ")),
                          min_size=1, max_size=6))
    script = "\n".join(lines) + "\n"
    n = len(lines)
    bp_lines = draw(st.lists(st.integers(1, n), unique=True, max_size=3))
    state = None
    if draw(st.booleans()):
        values = draw(st.dictionaries(TEXT.filter(bool), ARRAY, max_size=3))
        state = F.SavedState(draw(st.integers(0, 10**6)), {
            name: F.SavedTensor(v, v.copy() if v.dtype.kind == "f" else None,
                                v.dtype.kind == "f") for name, v in values.items()})
    return F.GraphFile(
        script=script, title=draw(TEXT), description=draw(TEXT),
        breakpoints=[F.Breakpoint(line, draw(st.none() | TEXT.filter(bool)), draw(st.booleans()))
                     for line in bp_lines],
        data_breakpoints=F.DataBreakpoints(draw(st.booleans()), draw(
            st.none() | st.floats(1e-6, 1e6)), *draw(st.tuples(*[st.booleans()] * 3))),
        settings=F.Settings(draw(st.integers(0, 2**64 - 1)), draw(st.dictionaries(
            st.sampled_from(["max_statements", "max_list", "max_output"]),
            st.integers(1, 10**6)))),  # a file may only lower the app's limits
        view=F.ViewState(draw(st.dictionaries(TEXT, POINT, max_size=3)),
                         draw(st.lists(TEXT.filter(bool), unique=True, max_size=3)),
                         draw(st.floats(1e-3, 1e3)), draw(st.none() | POINT)),
        notes=draw(st.dictionaries(st.integers(1, n), TEXT, max_size=3)),
        state=state,
        metadata=draw(st.dictionaries(TEXT, st.none() | st.booleans() | FINITE | TEXT
                                      | st.integers(), max_size=3)),
    )


@settings(max_examples=80, deadline=None)
@given(graph_files())
def test_any_graph_file_round_trips(gf):
    text = F.dumps(gf)
    again = F.loads(text)
    assert again == gf
    assert F.dumps(again) == text


def test_equality_is_bit_exact_not_numeric():
    a = F.GraphFile(state=F.SavedState(0, {"w": F.SavedTensor(np.array([0.0]))}))
    b = F.GraphFile(state=F.SavedState(0, {"w": F.SavedTensor(np.array([-0.0]))}))
    assert a != b
    assert F.loads(F.dumps(b)) == b


def test_lines_are_counted_as_pythons_parser_counts_them():
    import ast

    from engine.files.lines import line_count

    for script in ["a = 1", "a = 1\n", "a = 1\r\nb = 2", "a = 1\rb = 2\r", "\x0ca = 1\n",
                   "x = '\u2028'\ny = 2\n", ""]:
        last = max((n.lineno for n in ast.walk(ast.parse(script)) if hasattr(n, "lineno")),
                   default=1)
        assert line_count(script) == max(1, last), repr(script)
