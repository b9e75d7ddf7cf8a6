"""The teaching-program corpus (tests/corpus/programs/): each program runs clean under real
PyTorch, and prints the same thing (token by token, numbers to rtol 1e-4 / atol 1e-5) under
``import engine as torch`` and through gradstep's script interpreter.

All programs selected in a session are run by three child processes (one per path, at the
same time) the first time a result is needed; see run_corpus.py. Known failures are listed in
known_gaps.py (and KNOWN_GAPS.md) and marked xfail(strict=True): when a gap is fixed the test
XPASSes, fails, and the entry must be removed from the table.
"""

from __future__ import annotations

import pytest

from tests.corpus import run_corpus
from tests.corpus.known_gaps import KNOWN_GAPS

PROGRAMS = run_corpus.programs()
NAMES = [p.stem for p in PROGRAMS]

_results: dict[str, dict[str, dict]] = {}


def _selected(session, default):
    names = set()
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "name" in callspec.params and \
                item.module.__name__ == __name__:
            names.add(callspec.params["name"])
    return sorted(names) or default


@pytest.fixture(scope="session")
def corpus_results(request):
    """{mode: {program: result}} for the programs selected in this session, run on demand."""
    def get(mode: str, name: str) -> dict:
        if mode not in _results:
            names = _selected(request.session, NAMES)
            missing = [m for m in run_corpus.MODES if m not in _results]
            _results.update(run_corpus.run_all(names, modes=missing))
        if name not in _results[mode]:
            _results[mode].update(run_corpus.run_batch(mode, [name]))
        return _results[mode][name]
    return get


def _params(path: str):
    out = []
    for name in NAMES:
        marks = [pytest.mark.torch]
        reason = KNOWN_GAPS.get((name, path))
        if reason:
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def test_corpus_is_large_enough():
    assert len(PROGRAMS) >= 80
    for path in PROGRAMS:
        head = path.read_text().split('"""')[1]
        assert "Source:" in head and "http" in head, f"{path.name}: no source in its header"
        assert "Edits vs the source:" in head, f"{path.name}: no list of edits"


def test_known_gaps_table_is_current():
    for (name, path), reason in KNOWN_GAPS.items():
        assert name in NAMES, f"known gap for a missing program {name}"
        assert path in ("engine", "interpreter"), path
        assert reason.strip()
    text = (run_corpus.HERE / "KNOWN_GAPS.md").read_text()
    for name, path in KNOWN_GAPS:
        assert f"| {name} | {path} |" in text, f"{name}/{path} missing from KNOWN_GAPS.md"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.torch, id=n) for n in NAMES])
def test_torch_runs_clean(name, corpus_results):
    pytest.importorskip("torch")
    result = corpus_results("torch", name)
    assert result["error"] is None, result["error"]
    assert result["output"].strip(), "the program printed nothing"


@pytest.mark.parametrize("name", _params("engine"))
def test_engine_as_torch_matches(name, corpus_results):
    pytest.importorskip("torch")
    problem = run_corpus.verdict(corpus_results("torch", name), corpus_results("engine", name))
    assert problem is None, problem


@pytest.mark.parametrize("name", _params("interpreter"))
def test_interpreter_matches(name, corpus_results):
    pytest.importorskip("torch")
    problem = run_corpus.verdict(corpus_results("torch", name),
                                 corpus_results("interpreter", name))
    assert problem is None, problem


def test_compare_tokens():
    assert run_corpus.compare("loss 0.100000 [ 64/ 512]", "loss 0.1000004 [64/512]") is None
    assert run_corpus.compare("tensor([1.0000e+00, nan])", "tensor([1.00001, nan])") is None
    assert run_corpus.compare("<Foo object at 0x7f12>", "<Foo object at 0xdead>") is None
    assert run_corpus.compare("AddBackward0", "MulBackward0") is not None
    assert run_corpus.compare("-0.5", "0.5") is not None
    assert run_corpus.compare("1 2 3", "1 2") is not None
    assert run_corpus.compare("0.001", "0.0011") is not None
    # one unit in the last printed place, small beside the value: rounding of close values
    assert run_corpus.compare("perplexity 4.904", "perplexity 4.905") is None
    assert run_corpus.compare("perplexity 4.904", "perplexity 4.906") is not None
    assert run_corpus.compare("loss 0.5", "loss 0.6") is not None
    assert run_corpus.compare("4.904", "4.9050") is not None
