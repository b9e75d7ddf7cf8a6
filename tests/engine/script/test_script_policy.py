"""The safety policy lets ordinary PyTorch code through: imports in PyTorch's spellings, assignment
on the script's own objects and on the tensor attributes tutorials set, numpy's subset; and it
holds: no real module in the namespace, no change to the engine, limits counted as documented."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.nn
import engine.optim
from engine.script import Interpreter, Limits, ScriptError, run
from engine.script.modules import ModuleProxy


@pytest.mark.parametrize("line, name, module", [
    ("import torch", "torch", engine),
    ("import torch as T", "T", engine),
    ("import torch.nn as nn", "nn", engine.nn),
    ("import torch.nn.functional as F", "F", engine.nn.functional),
    ("from torch import nn", "nn", engine.nn),
    ("from torch import optim", "optim", engine.optim),
    ("import torch.optim as optim", "optim", engine.optim),
    ("from torch.nn import functional as F", "F", engine.nn.functional),
    ("import torch.nn", "torch", engine),
    ("import torch.autograd as autograd", "autograd", engine.autograd),
])
def test_imports_resolve_to_the_engine(line, name, module):
    value = run(line + "\n")[name]
    assert isinstance(value, ModuleProxy)
    assert value._module is module


def test_from_imports_give_the_engine_objects():
    ns = run("from torch.autograd import Variable\nfrom torch import nn, optim\n"
             "from torch.nn import Linear\nfrom numpy import float32\n")
    assert ns["Variable"] is engine.autograd.Variable
    assert ns["Linear"] is engine.nn.Linear
    assert ns["float32"] is np.float32


def test_namespace_never_holds_a_real_module():
    import types

    ns = run("import torch\nimport numpy as np\nimport torch.nn as nn\nfrom torch import optim\n"
             "a = torch.nn\nb = torch.autograd\n")
    assert not any(isinstance(v, types.ModuleType) for v in ns.values())


def test_monkeypatching_leaves_the_engine_unchanged():
    before = (engine.tensor, engine.Tensor.add, engine.nn.Linear.forward, engine.float32.name)
    for attack in ("import torch\ntorch.tensor = None\n", "import torch\ntorch.Tensor.add = 1\n",
                   "import torch.nn as nn\nnn.Linear.forward = 1\n",
                   "import torch\ntorch.float32.name = 'x'\n", "import torch\ndel torch.tensor\n"):
        with pytest.raises(ScriptError) as err:
            run(attack)
        assert err.value.kind == "forbidden"
    assert (engine.tensor, engine.Tensor.add, engine.nn.Linear.forward,
            engine.float32.name) == before


def test_assignment_allowed_on_own_objects_and_documented_tensor_attributes():
    ns = run("""
import torch
import torch.nn as nn
class Box:
    pass
b = Box()
b.value = 3
Box.label = 'box'
lin = nn.Linear(2, 2)
lin.extra = nn.Linear(2, 1)
lin.weight = nn.Parameter(torch.ones(2, 2))
x = torch.ones(2)
x.requires_grad = True
(x * 2).sum().backward()
x.grad = None
x.data = torch.zeros(2)
""")
    assert ns["b"].value == 3 and ns["Box"].label == "box"
    assert "extra" in dict(ns["lin"].named_children())
    assert ns["lin"].weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert ns["x"].grad is None and ns["x"].tolist() == [0.0, 0.0]


def test_numpy_subset_random_is_seeded_per_run_and_leaves_numpy_alone():
    state = np.random.get_state()[1].copy()
    source = "import numpy as np\nnp.random.seed(3)\na = np.random.randn(4)\n"
    first, second = run(source)["a"], run(source)["a"]
    assert np.array_equal(first, second)
    assert np.array_equal(first, np.random.RandomState(3).randn(4))
    assert np.array_equal(np.random.get_state()[1], state)


def test_numpy_arrays_keep_their_everyday_attributes():
    ns = run("import numpy as np\na = np.arange(6.0).reshape(2, 3)\ns = a.sum()\nt = a.T.shape\n"
             "m = a.mean(axis=0).tolist()\nb = a.astype(np.float32).dtype.name\n")
    assert ns["s"] == 15.0 and ns["t"] == (3, 2) and ns["m"] == [1.5, 2.5, 3.5]
    assert ns["b"] == "float32"


def test_str_format_works_without_lookups():
    ns = run("s = '{} {:.2f} {name!r} {0}'.format(1, 2.0, name='n')\n")
    assert ns["s"] == "1 2.00 'n' 1"


def test_with_needs_an_engine_context_manager():
    with pytest.raises(ScriptError) as err:
        run("with [1, 2]:\n    pass\n")
    assert err.value.kind == "runtime" and isinstance(err.value.__cause__, TypeError)


def test_memory_is_released_when_tensors_die():
    limits = Limits(max_total_bytes=8 << 20)
    run("import torch\nfor i in range(50):\n    x = torch.zeros(1000, 1000)\n", limits=limits)
    with pytest.raises(ScriptError) as err:
        run("import torch\nxs = [torch.zeros(1000, 1000) for i in range(50)]\n", limits=limits)
    assert err.value.kind == "limit"


def test_output_limit():
    limits = Limits(max_output=1000)
    with pytest.raises(ScriptError) as err:
        run("while True:\n    print('x' * 100)\n", limits=limits)
    assert err.value.kind == "limit"


def test_statement_limit_counts_comprehension_steps():
    limits = Limits(max_statements=1000)
    run("x = [i for i in range(500)]\n", limits=limits)
    with pytest.raises(ScriptError) as err:
        run("x = [i for i in range(5000)]\n", limits=limits)
    assert err.value.kind == "limit"


def test_generator_expressions_are_lazy_and_bounded():
    ns = run("total = sum(i * i for i in range(1000))\nfirst = next(iter(range(10**12)))\n")
    assert ns["total"] == sum(i * i for i in range(1000)) and ns["first"] == 0


def test_decorated_function_and_class_helpers():
    ns = run("""
import torch
class A:
    @staticmethod
    def s(v):
        return v + 1
    @classmethod
    def c(cls):
        return cls.k
    k = 5
    @property
    def p(self):
        return 7
@torch.no_grad()
def g(t):
    return (t * 2).requires_grad
r = (A.s(1), A.c(), A().p, g(torch.ones(1, requires_grad=True)))
""")
    assert ns["r"] == (2, 5, 7, False)


def test_interpreter_namespace_is_fresh_per_run():
    interp = Interpreter("try:\n    n = n + 1\nexcept NameError:\n    n = 0\n")
    assert interp.run()["n"] == 0
    assert interp.run()["n"] == 0


def test_print_options_do_not_outlive_the_run():
    from engine import tensor_format

    before = tensor_format.PRECISION
    ns = run("import torch\ntorch.set_printoptions(precision=1)\ns = str(torch.tensor([1.26]))\n")
    assert ns["s"] == "tensor([1.3])"
    assert tensor_format.PRECISION == before


@pytest.mark.parametrize("source", [
    "x = (1).__init__\n",
    "import torch\nf = torch.Tensor.__init__\n",
    "import torch.nn as nn\nm = nn.Linear(1, 1)\nf = m.__init__\n",
    "import torch.nn as nn\ng = nn.Module.__init__.__globals__\n",
])
def test_init_is_readable_only_on_module_and_script_classes(source):
    with pytest.raises(ScriptError) as err:
        run(source)
    assert err.value.kind == "forbidden"
