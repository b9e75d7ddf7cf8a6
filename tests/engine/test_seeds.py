"""The seed snippets (copies of /work/shared/seeds code, as the articles write them, with
``import torch``) print exactly what PyTorch prints when the engine stands in for torch."""

from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings
from pathlib import Path

import pytest

SEEDS = sorted((Path(__file__).parents[1] / "fixtures" / "seeds").glob("*.py"))


def _engine_modules() -> dict:
    """``torch`` and ``torch.<sub>`` names for the engine and all its loaded subpackages."""
    import engine
    import engine.nn
    import engine.optim  # noqa: F401

    return {"torch" + name[len("engine"):]: module for name, module in sys.modules.items()
            if name == "engine" or name.startswith("engine.")}


@contextlib.contextmanager
def engine_as_torch():
    """Within the block ``import torch`` (and ``from torch.autograd import ...``) gives the
    engine; the real torch modules are put back afterwards."""
    replaced = _engine_modules()
    saved = {name: sys.modules.get(name) for name in list(sys.modules)
             if name == "torch" or name.startswith("torch.")}
    for name in saved:
        del sys.modules[name]
    sys.modules.update(replaced)
    try:
        yield
    finally:
        for name in replaced:
            sys.modules.pop(name, None)
        sys.modules.update({k: v for k, v in saved.items() if v is not None})


def run_script(source: str, filename: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(source, filename, "exec"), {"__name__": "__main__"})
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", out.getvalue())


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.stem)
def test_seed_prints_what_torch_prints(path):
    pytest.importorskip("torch")
    source = path.read_text()
    expected = run_script(source, str(path))
    with engine_as_torch():
        actual = run_script(source, str(path))
    assert expected.strip(), "the seed printed nothing"
    assert actual == expected


def test_seeds_are_present():
    assert {p.stem for p in SEEDS} >= {"gradients_002", "variable_003",
                                       "item_tolist_zero_grad_000"}


def test_engine_as_torch_restores_real_torch():
    torch = pytest.importorskip("torch")
    with engine_as_torch():
        import torch as inside
    import torch as after

    assert inside.__name__ == "engine" and after is torch
