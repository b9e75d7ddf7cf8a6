"""The hostile corpus: every attack ends in a ScriptError of the expected kind, leaves no file
behind, and ends by its limits (a watchdog would turn a hang into a failure, not a pass). The
watchdog's ``stop()`` cannot end a hang inside one C call: ``test_script_limits.py`` runs every
attack again in a forked child that is killed after a timeout, and measures its peak memory."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.autograd.grad_mode import state as grad_state
from engine.script import Interpreter, Limits, ScriptError

CORPUS = sorted((Path(__file__).parent / "hostile").glob("*.py"))

# Small limits keep every attack cheap; the defaults are exercised by the other tests.
CORPUS_LIMITS = Limits(max_statements=200_000, max_tensor_elements=1_000_000,
                       max_total_bytes=64 << 20, max_recursion=50, max_string=100_000,
                       max_list=100_000, max_int_bits=10_000, max_output=100_000)
WATCHDOG_SECONDS = 60


def expected_kind(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), path.name
    return first.removeprefix("# expect: ").split()[0]  # "limit" or "limit line 3"


def expected_line(path: Path) -> int | None:
    """``# expect: limit line 3``: the line the error must name (optional)."""
    words = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect: ").split()
    return int(words[2]) if len(words) >= 3 and words[1] == "line" else None


def test_corpus_has_at_least_forty_attacks():
    assert len(CORPUS) >= 40


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_attack_is_refused(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    interp = Interpreter(path.read_text(encoding="utf-8"), limits=CORPUS_LIMITS,
                         filename=path.name)
    watchdog = threading.Timer(WATCHDOG_SECONDS, interp.stop)
    watchdog.start()
    try:
        with pytest.raises(ScriptError) as err:
            interp.run()
    finally:
        watchdog.cancel()
    assert err.value.kind != "stopped", "the attack ran until the watchdog stopped it"
    assert err.value.kind == expected_kind(path), repr(err.value)
    if expected_line(path) is not None:
        assert err.value.line == expected_line(path), repr(err.value)
    assert err.value.message
    assert list(tmp_path.iterdir()) == []
    assert grad_state.enabled


@pytest.mark.parametrize("path", CORPUS[:: max(1, len(CORPUS) // 12)],
                         ids=[p.stem for p in CORPUS[:: max(1, len(CORPUS) // 12)]])
def test_attack_is_refused_when_stepping(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    interp = Interpreter(path.read_text(encoding="utf-8"), limits=CORPUS_LIMITS)
    with pytest.raises(ScriptError) as err:
        for _ in interp.steps():
            pass
    assert err.value.kind == expected_kind(path)
    assert list(tmp_path.iterdir()) == []
