"""``np.random.default_rng`` in scripts (engine/script/numpy_rng.py): the numbers are real numpy's,
bit for bit; every size is within the run's limits; the generator's state stays out of reach."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from engine.script import Interpreter, Limits, ScriptError

CALLS = """
import numpy as np
rng = np.random.default_rng(42)
draws = [
    rng.standard_normal(3), rng.standard_normal(), rng.standard_normal((2, 2), dtype=np.float32),
    rng.normal(1.0, 2.0, size=(2, 3)), rng.normal([0.0, 10.0], 1.0), rng.normal(),
    rng.random(4), rng.random(), rng.uniform(-1, 1, 3), rng.uniform(size=2),
    rng.integers(0, 10, size=5), rng.integers(5), rng.integers(1, 7, size=(2, 2), endpoint=True),
    rng.choice(5, 3), rng.choice([1.5, 2.5, 3.5], size=4, p=[0.2, 0.3, 0.5]),
    rng.choice(20000, 4, replace=False), rng.choice(np.arange(12).reshape(4, 3), 2),
    rng.choice(np.arange(12).reshape(4, 3), 2, axis=1),
    rng.permutation(6), rng.permutation(np.arange(4) * 2),
]
for d in draws:
    print(repr(d))
x = list(range(8))
rng.shuffle(x)
a = np.arange(5)
rng.shuffle(a)
print(x, repr(a), str(rng))
other = np.random.default_rng([1, 2, 3])
print(repr(other.random(2)), np.random.default_rng(rng) is rng)
"""


def _python(source: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<numpy>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def _script(source: str, limits: Limits | None = None) -> str:
    interp = Interpreter(source, limits=limits)
    interp.run()
    return "".join(interp.output)


def test_numbers_are_numpy_s_bit_for_bit():
    assert _script(CALLS) == _python(CALLS)


def test_unseeded_generators_replay_with_the_run_and_differ_from_each_other():
    source = ("import numpy as np\na = np.random.default_rng().random(3)\n"
              "b = np.random.default_rng().random(3)\nprint(a.tolist(), b.tolist())\n")
    first, again = _script(source), _script(source)
    assert first == again
    a, b = first.split("] [")
    assert a != b


LIMITS = Limits(max_tensor_elements=100_000, max_total_bytes=64 << 20)

TOO_LARGE = [
    "rng.standard_normal(10**10)",
    "rng.standard_normal(size=np.int64(10**6))",
    "rng.normal(0, 1, (1000, 1000))",
    "rng.random((10**3, 10**3))",
    "rng.uniform(np.zeros((1000, 1)), np.zeros(1000))",  # the broadcast of the parameters
    "rng.integers(0, 2, size=[10**3, 10**3])",
    "rng.choice(10, 10**6)",
    "rng.choice(np.zeros((100, 1000)), 200)",  # 200 rows of 1000
    "rng.choice(2 * 10**6, 50_000, replace=False)",  # numpy would shuffle arange(2e6) for it
    "rng.permutation(10**6)",
    "rng.normal([[0.0] * 1000] * 1000)",
]


@pytest.mark.parametrize("call", TOO_LARGE)
def test_sizes_are_within_the_limits(call):
    with pytest.raises(ScriptError) as err:
        _script(f"import numpy as np\nrng = np.random.default_rng(0)\nx = {call}\n", LIMITS)
    assert err.value.kind == "limit" and err.value.line == 3, err.value


def test_a_large_population_sampled_sparsely_is_allowed():
    out = _script("import numpy as np\nrng = np.random.default_rng(0)\n"
                  "print(rng.choice(10**9, 5, replace=False).tolist())\n", LIMITS)
    want = np.random.default_rng(0).choice(10**9, 5, replace=False).tolist()
    assert out.strip() == str(want)


REFUSED = {
    "rng._rng": "forbidden",
    "rng.bit_generator": "runtime",  # AttributeError: not one of the methods
    "rng.spawn(2)": "runtime",
    "type(rng)(None, None, None)": "forbidden",
    "rng.random(out=np.zeros(3))": "runtime",
    "rng.random(dtype=object)": "forbidden",
    "rng.choice(['a', 'b'], 2)": "forbidden",  # an array of strings
    "rng.standard_normal(2.5)": "runtime",
}


@pytest.mark.parametrize("call", sorted(REFUSED))
def test_refused(call):
    with pytest.raises(ScriptError) as err:
        _script(f"import numpy as np\nrng = np.random.default_rng(0)\nx = {call}\n")
    assert err.value.kind == REFUSED[call] and err.value.line == 3, err.value
