"""``torch.set_num_threads``/``get_num_threads``, the inter-op pair,
``use_deterministic_algorithms`` and ``nn.utils.skip_init`` against PyTorch. The PyTorch side
runs in a fresh process, because its inter-op pool can be sized only once per process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

import engine

pytest.importorskip("torch")

SCRIPT = textwrap.dedent('''
    def settings(m):
        out = [m.get_num_threads(), m.get_num_interop_threads(),
               m.are_deterministic_algorithms_enabled()]
        calls = [lambda: m.set_num_threads(0), lambda: m.set_num_threads("a"),
                 lambda: m.set_num_threads(2.0), lambda: m.set_num_interop_threads(0),
                 lambda: m.set_num_interop_threads("x"), lambda: m.set_num_interop_threads(3),
                 lambda: m.set_num_interop_threads(2), lambda: m.use_deterministic_algorithms(1),
                 lambda: m.use_deterministic_algorithms(True, warn_only=1),
                 lambda: m.use_deterministic_algorithms(True, warn_only=True),
                 lambda: m.set_num_threads(3)]
        for f in calls:
            try:
                out.append(f())
            except Exception as e:
                out.append([type(e).__name__, str(e)])
        out += [m.get_num_threads(), m.get_num_interop_threads(),
                m.are_deterministic_algorithms_enabled(),
                m.is_deterministic_algorithms_warn_only_enabled()]
        return out

    def skip(m):
        m.manual_seed(0)
        layer = m.nn.utils.skip_init(m.nn.Linear, 3, 2, bias=False)
        out = [list(layer.weight.shape), layer.weight.requires_grad, layer.bias is None,
               m.rand(2).tolist(), [n for n, _ in layer.named_parameters()]]

        class NoDevice(m.nn.Module):
            pass
        for f in (lambda: m.nn.utils.skip_init(int), lambda: m.nn.utils.skip_init(NoDevice)):
            try:
                f()
            except Exception as e:
                out.append([type(e).__name__, str(e)])
        return out
''')


@pytest.fixture(scope="module")
def torch_answers():
    code = SCRIPT + "\nimport json, torch\nprint(json.dumps([settings(torch), skip(torch)]))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


@pytest.fixture
def fresh_engine_settings():
    saved = (dict(engine.threads.SETTINGS), dict(engine.threads.DETERMINISTIC))
    engine.threads.SETTINGS.update(intra=None, interop=None, interop_set=False)
    yield
    engine.threads.SETTINGS.update(saved[0])
    engine.threads.DETERMINISTIC.update(saved[1])


def _engine(name):
    scope = {}
    exec(SCRIPT, scope)
    return json.loads(json.dumps(scope[name](engine)))


def test_thread_and_determinism_settings_match_torch(torch_answers, fresh_engine_settings):
    assert _engine("settings") == torch_answers[0]


def test_skip_init_matches_torch(torch_answers):
    # the random stream is where it was: skip_init drew nothing
    assert _engine("skip") == torch_answers[1]
