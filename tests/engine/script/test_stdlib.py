"""The standard modules a tutorial imports, inside the safe interpreter: differential against real
Python + torch (printed output and namespace, ``script_diff.check_script``), the run's own seeded
``random``, and the guards that end runaway calls with a ``limit`` error naming the line."""

from __future__ import annotations

import random as process_random
import threading
import time

import pytest

import engine
from engine.script import Interpreter, Limits, ScriptError
from tests.engine.script.script_diff import check_script

SMALL = Limits(max_statements=200_000, max_tensor_elements=1_000_000, max_total_bytes=64 << 20,
               max_recursion=50, max_string=100_000, max_list=100_000, max_int_bits=10_000,
               max_output=100_000)

SNIPPETS = {
    "warnings": """
import warnings
warnings.filterwarnings('ignore')
warnings.simplefilter('ignore', category=FutureWarning)
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    x = 1
try:
    warnings.filterwarnings('sometimes')
except AssertionError as e:
    print('AssertionError', e)
try:
    warnings.warn('careful', int)
except TypeError as e:
    print('TypeError', e)
print(issubclass(FutureWarning, Warning), issubclass(UserWarning, Warning), x)
""",
    "pprint": """
from pprint import pprint, pformat
import pprint as pp_module
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
pprint(model.state_dict())
nested = {'layers': [{'name': 'fc%d' % i, 'shape': (i, i + 1)} for i in range(6)], 'lr': 0.1}
pprint(nested, width=40)
pp_module.pp({'b': 1, 'a': [1, 2]})
text = pformat(nested, indent=4, compact=True)
print(len(text), text.count('\\n'))
""",
    "math": """
import math
print(math.pi, math.e, math.tau, math.inf)
print(math.sqrt(2), math.exp(1.5), math.log(10), math.log(8, 2), math.cos(math.pi))
print(math.floor(2.7), math.ceil(2.1), math.gcd(12, 18), math.isclose(0.1 + 0.2, 0.3))
print(math.factorial(20), math.comb(10, 3), math.perm(5, 2), math.prod([1, 2, 3, 4]))
print(math.fsum([0.1] * 10), math.hypot(3, 4), math.isqrt(99), math.lcm(4, 6))
x = math.sqrt(16.0)
""",
    "random_seeded": """
import random
random.seed(42)
a = [random.random() for _ in range(3)]
b = random.randint(1, 100)
c = random.choice(["a", "b", "c"])
xs = list(range(10))
random.shuffle(xs)
d = random.sample(range(100), 5)
e = random.uniform(0, 1), random.gauss(0, 1), random.choices([1, 2, 3], k=4)
rng = random.Random(7)
f = rng.random()
print(a, b, c, xs, d, e, f)
""",
    "collections": """
from collections import namedtuple, deque, Counter, OrderedDict, defaultdict
Transition = namedtuple("Transition", ("state", "action", "reward"))
t = Transition(1, 2, 3.0)
batch = Transition(*zip(*[Transition(1, 2, 3.0), Transition(4, 5, 6.0)]))
print(t, t.reward, batch.state, len(t))
print(t._replace(reward=0.0), t._asdict(), Transition._fields, Transition._make([7, 8, 9]))
memory = deque([], maxlen=3)
for i in range(5):
    memory.append(i)
print(memory, list(memory), memory[0])
words = Counter("the cat and the hat and the bat".split())
print(words.most_common(2), words["the"], sum(words.values()))
od = OrderedDict(a=1, b=2)
od.move_to_end("a")
print(list(od.items()))
groups = defaultdict(list)
for k, v in [("x", 1), ("y", 2), ("x", 3)]:
    groups[k].append(v)
print(dict(groups))
""",
    "itertools": """
import itertools
print(list(itertools.chain([1, 2], (3,), range(2))))
print(list(itertools.chain.from_iterable([[1], [2, 3]])))
print(list(itertools.islice(itertools.count(10, 2), 4)))
print(list(itertools.product("ab", [0, 1])), list(itertools.product(range(2), repeat=3)))
print(list(itertools.permutations([1, 2, 3], 2)), list(itertools.combinations("abcd", 2)))
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.repeat("x", 3)))
print(list(itertools.zip_longest([1, 2], "a", fillvalue="-")), list(itertools.pairwise("abc")))
print([(k, list(g)) for k, g in itertools.groupby("aabbbc")])
print(list(itertools.takewhile(lambda x: x < 3, [1, 2, 5, 1])))
print(list(itertools.starmap(pow, [(2, 3)])))
print(list(itertools.islice(itertools.cycle("ab"), 5)), list(itertools.compress("abc", [1, 0, 1])))
""",
    "functools_operator": """
import functools
import operator
print(functools.reduce(operator.add, [1, 2, 3, 4]))
print(functools.reduce(lambda a, b: a * b, [1, 2, 3], 10))
double = functools.partial(operator.mul, 2)
print(double(21), functools.partial(int, base=2)("101"))
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(60), fib.cache_info().hits > 0)
@functools.cache
def sq(n):
    return n * n
print(sq(4), sq(4))
def deco(f):
    @functools.wraps(f)
    def inner(*a):
        return f(*a) + 1
    return inner
@deco
def one():
    return 1
print(one(), one.__name__)
print(sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)))
print(operator.itemgetter(1)([5, 6]), operator.attrgetter("real")(3))
print(operator.neg(4), operator.getitem([1, 2], 0))
""",
    "copy_model": """
import copy
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(3, 1)
clone = copy.deepcopy(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(2, 3)
loss = model(x).sum()
loss.backward()
opt.step()
same = torch.equal(model.weight, clone.weight)
print(same, clone.weight.grad is None)
nested = {"a": [1, [2, 3]], "t": torch.tensor([1.0, 2.0])}
deep = copy.deepcopy(nested)
deep["a"][1].append(4)
deep["t"][0] = 9.0
shallow = copy.copy(nested)
print(nested["a"], deep["a"], nested["t"], deep["t"], shallow["a"] is nested["a"])
del nested, deep, shallow  # (a deep-copied tensor's version counter is not compared)
a = [1]
a.append(a)
b = copy.deepcopy(a)
print(b[1] is b, b is a)
""",
    "dataclasses_enum_typing": """
from __future__ import annotations
import dataclasses
import enum
from dataclasses import dataclass, field
from typing import List, Optional, Dict, Tuple
@dataclass
class Config:
    lr: float = 0.1
    epochs: int = 3
    layers: List[int] = field(default_factory=lambda: [4, 2])
    name: Optional[str] = None
c = Config(lr=0.5)
print(c, c == Config(0.5), dataclasses.asdict(c), dataclasses.replace(c, epochs=9).epochs)
print([f.name for f in dataclasses.fields(Config)])
@dataclass(frozen=True)
class Point:
    x: int
    y: int
print(Point(1, 2), hash(Point(1, 2)) == hash(Point(1, 2)))
class Color(enum.Enum):
    RED = 1
    GREEN = enum.auto()
class Mode(enum.IntEnum):
    TRAIN = 0
    EVAL = 1
print(Color.RED, Color.GREEN.value, Color(1).name, [c.name for c in Color], Mode.EVAL + 1)
print(Color.RED is Color["RED"], len(Color))
def f(x: Dict[str, int]) -> Tuple[int, ...]:
    return tuple(x.values())
print(f({"a": 1}))
""",
    "string_time_statistics": """
import string
import statistics
import time
import timeit
print(string.ascii_lowercase, string.digits, string.capwords("hello world"))
print(statistics.mean([1, 2, 3, 4]), statistics.median([3, 1, 2]))
print(statistics.stdev([1.0, 2.0, 3.0]))
print(statistics.mode([1, 1, 2]), statistics.pvariance([1, 2, 3, 4]))
start = time.time()
t0 = time.perf_counter()
time.sleep(0.01)
elapsed = time.perf_counter() - t0
print(elapsed >= 0, time.time() >= start, time.monotonic() > 0)
print(timeit.timeit(lambda: 1, number=10) >= 0)
del start, t0, elapsed  # clock reads differ (and sleep returns at once in gradstep)
""",
    "dataset_tutorial": """
import torch
from torch.utils.data import Dataset, DataLoader, TensorDataset, random_split
class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32).unsqueeze(1)
        self.y = self.x ** 2
    def __len__(self):
        return len(self.x)
    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]
ds = Squares(10)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4, shuffle=False)
for xb, yb in loader:
    print(xb.shape, yb.squeeze(1))
torch.manual_seed(0)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
print(round(loss.item(), 4))
td = TensorDataset(torch.ones(4, 2), torch.zeros(4))
print(len(td), [len(s) for s in random_split(td, [3, 1])])
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_same_as_python_and_torch(name):
    check_script(SNIPPETS[name])


def test_torch_utils_data_names():
    ns = Interpreter("import torch.utils.data as data\nnames = dir(data)\n"
                     "from torch.utils.data import Sampler, SequentialSampler, BatchSampler\n"
                     "import torch.utils\nok = torch.utils.data is data\n").run()
    for name in ("DataLoader", "Dataset", "TensorDataset", "random_split", "default_collate"):
        assert name in ns["names"]
    assert not [n for n in ns["names"] if n.startswith("_")]


# -- random: the run's own generator, seeded by the session --------------------------------------

RANDOM_SCRIPT = ("import random\nxs = [random.random() for _ in range(3)]\n"
                 "k = random.randint(0, 99)\n")


def test_random_is_seeded_by_the_session_seed_and_replays():
    engine.manual_seed(1234)
    first = Interpreter(RANDOM_SCRIPT).run()
    want = process_random.Random(1234)
    assert first["xs"] == [want.random() for _ in range(3)]
    assert first["k"] == want.randint(0, 99)
    interp = Interpreter(RANDOM_SCRIPT)
    engine.manual_seed(1234)
    a = interp.run()
    engine.manual_seed(1234)
    b = interp.run()  # re-execution is exact
    assert a["xs"] == b["xs"] == first["xs"]
    engine.manual_seed(5)
    assert Interpreter(RANDOM_SCRIPT).run()["xs"] != first["xs"]


def test_random_never_touches_the_process_generator():
    process_random.seed(99)
    state = process_random.getstate()
    Interpreter("import random\nrandom.seed(3)\nx = random.random()\nrandom.shuffle([1, 2])\n"
                "random.seed()\n").run()
    assert process_random.getstate() == state


def test_random_seed_matches_python():
    ns = Interpreter("import random\nrandom.seed(11)\nxs = [random.random(), random.randrange(50),"
                     " random.choice('abc')]\nys = list(range(8))\nrandom.shuffle(ys)\n").run()
    r = process_random.Random(11)
    assert ns["xs"] == [r.random(), r.randrange(50), r.choice("abc")]
    ys = list(range(8))
    r.shuffle(ys)
    assert ns["ys"] == ys


# -- what runs away ends with a limit error on its line ------------------------------------------

RUNAWAY = {
    "math.factorial(10**7)": "import math\nx = math.factorial(10**7)",
    "math.comb huge": "import math\nx = math.comb(10**9, 10**8)",
    "math.perm huge": "import math\nx = math.perm(10**6)",
    "math.prod of huge ints": "import math\nx = math.prod([10**1000] * 50)",
    "math.prod of a range": "import math\nx = math.prod(range(1, 10**5))",
    "product materialised": "import itertools\n"
                            "x = list(itertools.product(range(10**6), repeat=10))",
    "product counted": "import itertools\nx = list(itertools.product(range(100), repeat=4))",
    "permutations": "import itertools\nfor p in itertools.permutations(range(1000)):\n    pass",
    "random.sample": "import random\nx = random.sample(range(10**12), 10**9)",
    "random.choices": "import random\nx = random.choices([1, 2], k=10**10)",
    "random.getrandbits": "import random\nx = random.getrandbits(10**9)",
    "deque of count()": "import collections, itertools\n"
                        "d = collections.deque(itertools.count(), maxlen=3)",
    "deque.extend(repeat)": "import collections, itertools\nd = collections.deque(maxlen=3)\n"
                            "d.extend(itertools.repeat(1))",
    "reduce over a huge range": "import functools, operator\n"
                                "x = functools.reduce(operator.add, range(10**12))",
    "reduce of products": "import functools, operator\n"
                          "x = functools.reduce(operator.mul, range(1, 10**5))",
    "deepcopy very deep": "import copy\na = []\nfor i in range(20000):\n    a = [a]\n"
                          "b = copy.deepcopy(a)",
    "Counter.elements": "import collections\nc = collections.Counter({'a': 10**12})\nx = []\n"
                        "x.extend(c.elements())",
    "deque * n": "import collections\nd = collections.deque([1]) * 10**8",
    "deque doubling": "import collections\nd = collections.deque([1])\nfor i in range(20):\n"
                      "    d.extend(d)",
    "timeit number": "import timeit\ntimeit.timeit(lambda: 1, number=10**9)",
    "accumulate products": "import itertools, operator\n"
                           "list(itertools.accumulate([10**100] * 1000, operator.mul))",
    "pprint indentation": "import pprint\na = [0]\nfor i in range(150):\n    a = [a, 1]\n"
                          "pprint.pformat(a, indent=16, width=1)",
    "pprint of a shared structure": "import pprint\na = [0]\nfor i in range(40):\n"
                                    "    a = [a, a]\npprint.pprint(a)",
    "pprint indent argument": "import pprint\npprint.pformat([1], indent=10**9)",
}


@pytest.mark.parametrize("name", sorted(RUNAWAY))
def test_runaway_call_ends_with_a_limit(name):
    source = RUNAWAY[name]
    interp = Interpreter(source, limits=SMALL)
    watchdog = threading.Timer(30, interp.stop)
    watchdog.start()
    start = time.monotonic()
    try:
        with pytest.raises(ScriptError) as err:
            interp.run()
    finally:
        watchdog.cancel()
    assert err.value.kind == "limit", repr(err.value)
    assert err.value.line == len(source.splitlines())
    assert time.monotonic() - start < 20


def test_sleep_returns_at_once():
    start = time.monotonic()
    ns = Interpreter("import time\ntime.sleep(3600)\ndone = True\n").run()
    assert ns["done"] and time.monotonic() - start < 5
    with pytest.raises(ScriptError) as err:
        Interpreter("import time\ntime.sleep(-1)\n").run()
    assert err.value.kind == "runtime" and "non-negative" in err.value.message


@pytest.mark.parametrize("module", ["os", "sys", "subprocess", "socket", "pathlib", "pickle",
                                    "inspect", "importlib", "ctypes", "threading"])
def test_refused_modules_say_why(module):
    with pytest.raises(ScriptError) as err:
        Interpreter(f"x = 1\nimport {module}\n").run()
    assert err.value.kind == "forbidden"
    assert err.value.line == 2
    assert err.value.message.startswith(f"scripts cannot import {module}: ")


def test_unknown_module_lists_what_is_importable():
    with pytest.raises(ScriptError) as err:
        Interpreter("import json5\n").run()
    assert "math" in err.value.message and "itertools" in err.value.message


@pytest.mark.parametrize("source", [
    "import random\nrandom._inst",
    "from random import SystemRandom",
    "from typing import get_type_hints",
    "import operator\noperator.attrgetter('__class__')",
    "import operator\noperator.methodcaller('__reduce_ex__', 2)",
    "import timeit\ntimeit.timeit('1 + 1')",
    "from dataclasses import make_dataclass",
    "import functools\nf = functools.partial(print)\nf.func.__self__",
])
def test_internals_stay_refused(source):
    with pytest.raises(ScriptError) as err:
        Interpreter(source).run()
    assert err.value.kind == "forbidden", repr(err.value)


def test_deepcopy_of_script_objects_never_copies_the_interpreter():
    ns = Interpreter("""
import copy
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        self.act = lambda x: x * 2
        self.say = print
    def forward(self, x):
        return self.act(self.fc(x))
net = Net()
twin = copy.deepcopy(net)
same_fn = twin.act is net.act
out = twin(torch.ones(1, 2)).shape
def g():
    yield 1
try:
    copy.deepcopy(g())
    refused = False
except TypeError:
    refused = True
""").run()
    assert ns["same_fn"] and ns["refused"] and tuple(ns["out"]) == (1, 2)
