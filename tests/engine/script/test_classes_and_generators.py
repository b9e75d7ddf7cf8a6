"""Script classes with Python's data model, generator functions and dir()/id(): differential
against real Python + torch where possible, stepping into generator bodies, and the limits that
end a runaway dunder or an endless generator."""

from __future__ import annotations

import pytest

from engine.autograd.grad_mode import state as grad_state
from engine.script import Interpreter, Limits, ScriptError
from tests.engine.script.script_diff import check_script

SMALL = Limits(max_statements=100_000, max_recursion=40, max_list=100_000)

SNIPPETS = {
    "vector_class": """
class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)
    def __repr__(self):
        return f"Vec{tuple(self.xs)}"
    def __str__(self):
        return "<" + ", ".join(str(x) for x in self.xs) + ">"
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.xs[i]
    def __setitem__(self, i, v):
        self.xs[i] = v
    def __delitem__(self, i):
        del self.xs[i]
    def __iter__(self):
        return iter(self.xs)
    def __contains__(self, v):
        return v in self.xs
    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs
    def __hash__(self):
        return hash(tuple(self.xs))
    def __lt__(self, other):
        return sum(self.xs) < sum(other.xs)
    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])
    def __radd__(self, other):
        return Vec(*[other + a for a in self.xs])
    def __mul__(self, k):
        return Vec(*[a * k for a in self.xs])
    def __rmul__(self, k):
        return self * k
    def __neg__(self):
        return self * -1
    def __abs__(self):
        return sum(x * x for x in self.xs) ** 0.5
    def __bool__(self):
        return any(self.xs)
    def __call__(self, i):
        return self.xs[i] * 10
v = Vec(1, 2, 3)
w = Vec(3, 4, 0)
v[0] = 5
del w[2]
print(v, repr(v), len(v), v[1], list(v), 2 in v, v == Vec(5, 2, 3), v + Vec(1, 1, 1))
print(2 * v, -v, abs(Vec(3, 4)), bool(Vec(0, 0)), v(1), sorted([v, w]), {v: 1}[Vec(5, 2, 3)])
print(sum([Vec(1, 1), Vec(2, 2)], Vec(0, 0)), 1 + Vec(1, 2), max([v, w]))
if Vec(0):
    print("never")
""",
    "context_manager": """
class Timer:
    def __init__(self, name):
        self.name = name
        self.log = []
    def __enter__(self):
        self.log.append("enter " + self.name)
        return self
    def __exit__(self, exc_type, exc, tb):
        self.log.append(f"exit {self.name} {exc_type.__name__ if exc_type else None}")
        return exc_type is KeyError
with Timer("a") as t:
    x = 1
print(t.log)
with Timer("b") as t2:
    raise KeyError("swallowed")
print(t2.log)
try:
    with Timer("c") as t3:
        raise ValueError("kept")
except ValueError as e:
    print("caught", e, t3.log)
""",
    "generators": """
def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1
    return "done"
print(list(count_up(4)), sum(count_up(5)), [x * 2 for x in count_up(3)])
g = count_up(2)
print(next(g), next(g))
try:
    next(g)
except StopIteration as e:
    print("stop", e.value)
def echo():
    total = 0
    while True:
        got = yield total
        if got is None:
            break
        total += got
e = echo()
print(next(e), e.send(3), e.send(4))
def outer():
    r = yield from count_up(3)
    yield r
    yield from "ab"
print(list(outer()))
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
f = fib()
print([next(f) for _ in range(10)])
f.close()
print(next(f, "closed"))
print(dict(zip("abc", count_up(3))), max(count_up(4)), sorted(count_up(3), reverse=True))
def guarded():
    try:
        yield 1
    finally:
        print("finally ran")
first = next(guarded())
print("after the dropped generator")
h = guarded()
next(h)
h.close()
def stubborn():
    try:
        yield 1
    finally:
        yield 2
s = stubborn()
next(s)
try:
    s.close()
except RuntimeError as err:
    print("RuntimeError", err)
""",
    "dropped_generator_leaves_grad_mode": """
import torch
def no_grad_items():
    with torch.no_grad():
        yield 1
        yield 2
for _ in range(5):
    x = next(no_grad_items())
enabled = torch.is_grad_enabled()
w = torch.ones(2, requires_grad=True)
y = (w * 2).sum()
print(enabled, y.requires_grad)
""",
    "batching_generator_training": """
import torch
import torch.nn as nn
torch.manual_seed(0)
X = torch.randn(20, 3)
Y = X.sum(dim=1, keepdim=True)
def batches(x, y, size):
    for i in range(0, len(x), size):
        yield x[i:i + size], y[i:i + size]
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for xb, yb in batches(X, Y, 8):
        opt.zero_grad()
        loss = ((model(xb) - yb) ** 2).mean()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 5))
""",
    "iterable_dataset_and_sampler": """
import torch
from torch.utils.data import DataLoader, IterableDataset, Sampler, Dataset
class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        for i in range(self.n):
            yield torch.tensor([float(i), float(i) * 2])
print([b.tolist() for b in DataLoader(Stream(5), batch_size=2)])
class Backwards(Sampler):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(range(self.n - 1, -1, -1))
    def __len__(self):
        return self.n
class Items(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.tensor(float(i))
print([b.tolist() for b in DataLoader(Items(), batch_size=3, sampler=Backwards(4))])
""",
    "enum_and_exceptions": """
import enum
class Phase(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"
print(Phase("eval"), Phase.TRAIN.value, [p.name for p in Phase], Phase.TRAIN == Phase.TRAIN)
class ShapeError(ValueError):
    pass
try:
    raise ShapeError("bad shape")
except ValueError as e:
    print(type(e).__name__, e)
""",
    # older tutorials derive every class from object, and call super() in two ways
    "object_base_class": """
import torch
class Meter(object):
    def __init__(self):
        super().__init__()
        self.total = 0.0
class Averager(Meter):
    def __init__(self, n):
        super(Averager, self).__init__()
        self.n = n
    def add(self, t):
        self.total += t.sum().item()
        return self.total / self.n
class Pair(object):
    pass
m = Averager(4)
print(m.add(torch.ones(2, 2)), isinstance(m, object), isinstance(3, object))
print(Averager.mro()[-1] is object, type(object()) is object, Pair.__name__)
sentinel = object()
print(sentinel is not object(), sentinel == sentinel)
""",
    "dir_and_id": """
class A:
    def __init__(self):
        self.w = 1
    def f(self):
        return 2
a = A()
print([n for n in dir(a) if not n.startswith("_")], id(a) == id(a), id(a) != id(A()))
def local_names():
    x = 1
    y = 2
    return dir()
print(local_names())
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_same_as_python_and_torch(name):
    check_script(SNIPPETS[name])


def test_dir_of_engine_objects_lists_public_names():
    ns = Interpreter("import torch\nt = torch.ones(2)\nnames = dir(t)\nmods = dir(torch.nn)\n"
                     "lin = dir(torch.nn.Linear(2, 2))\n").run()
    assert "backward" in ns["names"] and "grad" in ns["names"]
    assert "Linear" in ns["mods"] and "functional" in ns["mods"]
    assert "weight" in ns["lin"]
    for names in (ns["names"], ns["mods"], ns["lin"]):
        assert not [n for n in names if n.startswith("_")]


# -- stepping into a generator ------------------------------------------------------------------

STEP_SCRIPT = """\
def gen(n):
    for i in range(n):
        y = i * 2
        yield y
def run():
    total = 0
    for v in gen(3):
        total += v
    return total
result = run()
"""


def test_steps_pause_inside_the_generator_body():
    interp = Interpreter(STEP_SCRIPT)
    pauses = [(p.line, p.depth, tuple(f.name for f in p.stack), dict(p.locals))
              for p in interp.steps()]
    inside = [p for p in pauses if p[2][-1] == "gen"]
    assert [p[0] for p in inside] == [2, 3, 4, 3, 4, 3, 4]
    assert all(depth == 2 for _, depth, _, _ in inside)
    assert inside[0][2] == ("<module>", "run", "gen")
    assert inside[2][3]["y"] == 0 and inside[4][3]["i"] == 1
    assert interp.globals["result"] == 6
    # the caller's frame is back at its own depth between resumptions
    assert {p[1] for p in pauses if p[2][-1] == "run"} == {1}


def test_stop_inside_a_generator_body():
    interp = Interpreter(STEP_SCRIPT)
    steps = interp.steps()
    with pytest.raises(ScriptError) as err:
        for pause in steps:
            if pause.stack[-1].name == "gen" and pause.line == 4:
                interp.stop()
    assert err.value.kind == "stopped"
    assert interp._stack == []


def test_abandoning_steps_inside_a_generator_unwinds():
    interp = Interpreter("import torch\ndef gen():\n    with torch.no_grad():\n        yield 1\n"
                         "        yield 2\nfor x in gen():\n    pass\n")
    steps = interp.steps()
    for pause in steps:
        if pause.stack[-1].name == "gen" and pause.line == 5:
            break
    assert not grad_state.enabled  # paused inside no_grad
    steps.close()
    assert grad_state.enabled
    assert interp._stack == [] and interp._depth == 0
    assert interp.run()["x"] == 2  # and the interpreter runs again


# -- limits ------------------------------------------------------------------------------------

@pytest.mark.parametrize("source, kind", [
    ("def g():\n    while True:\n        yield 1\nfor x in g():\n    pass\n", "limit"),
    ("def g():\n    while True:\n        yield 1\nx = list(g())\n", "limit"),
    ("def g():\n    yield from g()\nnext(g())\n", "limit"),
    ("class D:\n    def __getitem__(self, i):\n        return self[i]\nD()[0]\n", "limit"),
    ("class D:\n    def __len__(self):\n        return len(self)\nlen(D())\n", "limit"),
    ("class D:\n    def __repr__(self):\n        while True:\n            pass\nprint(D())\n",
     "limit"),
    ("class D:\n    def __iter__(self):\n        return self\n    def __next__(self):\n"
     "        return 1\nfor x in D():\n    pass\n", "limit"),
    ("class D:\n    def __len__(self):\n        return 10**30\nlen(D())\n", "runtime"),
    ("class D:\n    def __len__(self):\n        return 'x'\nlen(D())\n", "runtime"),
    ("class D:\n    def __index__(self):\n        return 10**9\n", "forbidden"),
    ("class D:\n    def __getattr__(self, name):\n        return 1\n", "forbidden"),
    ("x = (yield 1)\n", "syntax"),
    ("xs = [(yield i) for i in range(3)]\n", "syntax"),
])
def test_dunders_and_generators_stay_bounded(source, kind):
    with pytest.raises(ScriptError) as err:
        Interpreter(source, limits=SMALL).run()
    assert err.value.kind == kind, repr(err.value)
    assert err.value.line is not None


def test_len_errors_are_pythons():
    with pytest.raises(ScriptError) as err:
        Interpreter("class D:\n    def __len__(self):\n        return 10**30\nlen(D())\n").run()
    assert isinstance(err.value.__cause__, OverflowError)
    with pytest.raises(ScriptError) as err:
        Interpreter("class D:\n    def __len__(self):\n        return -1\nlen(D())\n").run()
    assert isinstance(err.value.__cause__, ValueError)


def test_generator_has_no_frame_attributes():
    for attr in ("gi_frame", "gi_code", "gi_running"):
        with pytest.raises(ScriptError) as err:
            Interpreter(f"def g():\n    yield 1\nx = g().{attr}\n").run()
        assert err.value.kind == "runtime"
        assert isinstance(err.value.__cause__, AttributeError)
