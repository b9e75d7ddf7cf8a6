"""More differential tests (engine vs real PyTorch): how module and optimizer classes print
(``type(m)`` is ``<class 'torch.nn.modules.linear.Linear'>``; a class a script defines prints as
torch prints one defined in ``__main__``), and the node names of second-order graphs
(``autograd.grad(..., create_graph=True)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from tests.engine.differential import check
from tests.engine.script.script_diff import check_script

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]


# -- 1. module and optimizer classes print as torch's ---------------------------------------------

_MODULES = [
    "nn.Linear(2, 3)", "nn.Identity()", "nn.Sequential(nn.Linear(2, 2), nn.ReLU())",
    "nn.ModuleList([nn.Tanh()])", "nn.Flatten()", "nn.ReLU()", "nn.Tanh()", "nn.Sigmoid()",
    "nn.Softmax(dim=1)", "nn.LogSoftmax(dim=1)", "nn.LeakyReLU()", "nn.GELU()", "nn.Softplus()",
    "nn.ELU()", "nn.SiLU()", "nn.MSELoss()", "nn.L1Loss()", "nn.NLLLoss()",
    "nn.CrossEntropyLoss()", "nn.BCELoss()", "nn.BCEWithLogitsLoss()", "nn.Module()",
]
_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


@pytest.mark.parametrize("expr", _MODULES)
def test_module_type_prints_as_torch(expr):
    check(lambda t: (lambda m: (str(type(m)), repr(type(m)), f"{type(m)}", type(m).__name__,
                                isinstance(m, t.nn.Module)))(eval(expr, {"nn": t.nn})))


@pytest.mark.parametrize("name", _OPTIMIZERS)
def test_optimizer_type_prints_as_torch(name):
    def snippet(t):
        o = getattr(t.optim, name)([t.ones(2, requires_grad=True)], lr=0.1)
        return (str(type(o)), type(o).__name__, isinstance(o, t.optim.Optimizer))
    check(snippet)


def test_base_classes_print_as_torch():
    check(lambda t: (repr(t.nn.Module), repr(t.optim.Optimizer), repr(t.nn.Linear),
                     [repr(c) for c in type(t.nn.MSELoss()).__mro__[:-1]],
                     [repr(c) for c in type(t.nn.CrossEntropyLoss()).__mro__[:-1]],
                     [repr(c) for c in type(
                         t.optim.AdamW([t.ones(1, requires_grad=True)])).__mro__[:-1]]))


def test_engine_classes_keep_their_module():
    # the script interpreter's safety policy keys on __module__: it stays the engine's
    assert engine.nn.Linear.__module__ == "engine.nn.linear"
    assert engine.nn.Module.__module__ == "engine.nn.module"
    assert engine.optim.SGD.__module__ == "engine.optim.sgd"
    assert type(engine.nn.Module) is type(engine.Tensor).__mro__[1]  # one metaclass helper

    class Mine(engine.nn.Module):  # a subclass made elsewhere prints as Python prints it
        pass

    assert repr(Mine) == f"<class '{__name__}.test_engine_classes_keep_their_module.<locals>.Mine'>"


_SCRIPT = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))

class Deeper(Net):
    pass

net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.fill_(0.25)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
print(type(net), Net, type(Deeper()), type(net.fc), type(net.act))
print(type(opt), type(torch.optim.Adam(net.parameters())), type(nn.MSELoss()))
print(type(nn.Sequential(nn.Linear(2, 2))), nn.Module, torch.optim.Optimizer)
print(type(net).__name__, type(net.fc).__name__, isinstance(net, nn.Module))
print(isinstance(opt, torch.optim.Optimizer), isinstance(net.fc, torch.nn.Linear))
print(f"{type(net.fc)!r} {str(type(opt))}")
print([type(m) for m in nn.Sequential(nn.Linear(2, 2), nn.Tanh()).children()])
print(net)
x = torch.ones(1, 2)
y = net(x).sum()
y.backward()
opt.step()
"""


def test_script_prints_module_and_optimizer_types_as_torch():
    pytest.importorskip("torch", reason="real PyTorch is the oracle of this comparison")
    check_script(_SCRIPT)


def test_script_class_prints_as_main():
    from engine.script import Interpreter

    interp = Interpreter(_SCRIPT)
    interp.run()
    assert "".join(interp.output).splitlines()[0] == (
        "<class '__main__.Net'> <class '__main__.Net'> <class '__main__.Deeper'> "
        "<class 'torch.nn.modules.linear.Linear'> <class 'torch.nn.modules.activation.ReLU'>")


def test_script_still_cannot_build_the_metaclass():
    from engine.script import Interpreter, ScriptError

    for src in ("import torch\nM = type(torch.nn.Linear)\nC = M('C', (), {})\n",
                "import torch\nM = type(torch.optim.SGD)\nC = M('C', (), {})\n"):
        with pytest.raises(ScriptError) as e:
            Interpreter(src).run()
        assert e.value.kind == "forbidden"


def test_example_net_module_training_runs_as_before():
    from engine.files import load
    from engine.script import run

    gf = load(Path(__file__).parents[2] / "resources" / "examples"
              / "12_net_module_training.gstep")
    engine.manual_seed(0)
    ns = run(gf.script)
    assert repr(type(ns["net"])) == "<class '__main__.Net'>"
    assert isinstance(ns["net"], engine.nn.Module) and ns["net"].fc1.weight.grad is not None


# -- 2. second-order graphs: PyTorch's nodes ------------------------------------------------------

def _xy(t):
    x = t.tensor([[1.0, 2.0], [3.0, -4.0]], requires_grad=True)
    y = t.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
    return x, y


_SECOND_ORDER = {
    "mul": lambda t, x, y: (x * y).sum(),
    "mul-self": lambda t, x, y: (x * x).sum(),
    "mul-scalar": lambda t, x, y: (x * 3.0).sum(),
    "div": lambda t, x, y: (x / y).sum(),
    "div-scalar": lambda t, x, y: (x / 2.0).sum(),
    "rdiv": lambda t, x, y: (1.0 / y).sum(),
    "pow2": lambda t, x, y: (x ** 2).sum(),
    "pow3": lambda t, x, y: (x ** 3).sum(),
    "pow-half": lambda t, x, y: (y.exp() ** 0.5).sum(),
    "exp": lambda t, x, y: x.exp().sum(),
    "log": lambda t, x, y: y.exp().log().sum(),
    "tanh": lambda t, x, y: (x * 0.5).tanh().sum(),
    "sigmoid": lambda t, x, y: x.sigmoid().sum(),
    "matmul": lambda t, x, y: (x @ y).sum(),
    "mm": lambda t, x, y: x.mm(y).sum(),
    "T": lambda t, x, y: (x.T * y).sum(),
    "t": lambda t, x, y: (x.t() * y).sum(),
    "sum": lambda t, x, y: x.sum() * y.sum(),
    "sum-dim": lambda t, x, y: (x.sum(0) * y.sum(1)).sum(),
    "mean": lambda t, x, y: x.mean() * y.sum(),
    "mean-dim": lambda t, x, y: (x.mean(0) * y.mean(1)).sum(),
    "mlp": lambda t, x, y: (x.mm(y).tanh() ** 2).mean(),
    "mlp-sigmoid": lambda t, x, y: (x.mm(y.t()).sigmoid() * y).sum(),
    "chain": lambda t, x, y: ((x * y).exp() / (y * y + 1.0)).log().mean(),
}


@pytest.mark.parametrize("name", list(_SECOND_ORDER))
def test_second_order_graph_matches_torch(name):
    def snippet(t):
        x, y = _xy(t)
        grads = t.autograd.grad(_SECOND_ORDER[name](t, x, y), (x, y), create_graph=True,
                                allow_unused=True)
        return grads  # values, flags and the whole grad_fn graph of each
    check(snippet, rtol=1e-4, atol=1e-5)


# third order: the whole graph where the engine sums contributions in PyTorch's order; for the
# others (PyTorch adds some of the same terms in another order) the values
_THIRD_ORDER_GRAPHS = ["mul", "rdiv", "pow3", "exp", "tanh", "sigmoid", "mm", "mean-dim"]


@pytest.mark.parametrize("name", _THIRD_ORDER_GRAPHS + ["div", "mlp", "mlp-sigmoid", "chain"])
def test_third_order_matches_torch(name):
    graphs = name in _THIRD_ORDER_GRAPHS

    def snippet(t):
        x, y = _xy(t)
        gx, gy = t.autograd.grad(_SECOND_ORDER[name](t, x, y), (x, y), create_graph=True,
                                 allow_unused=True)
        total = sum(g.sum() for g in (gx, gy) if g is not None)
        hx, hy = t.autograd.grad(total, (x, y), create_graph=True, allow_unused=True)
        total = sum((h * h).sum() for h in (hx, hy) if h is not None)
        out = (hx, hy, t.autograd.grad(total, (x, y), allow_unused=True))
        return out if graphs else [None if h is None else h.detach().clone()
                                   for h in out[:2] + out[2]]
    check(snippet, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", ["tanh", "sigmoid"])
def test_fused_backward_nodes_save_as_torch(fn):
    def snippet(t):
        x = t.tensor([0.3, -0.5, 2.0], requires_grad=True)
        g, = t.autograd.grad(getattr(x, fn)().sum(), x, create_graph=True)
        n = g.grad_fn
        h, = t.autograd.grad((g * g).sum(), x, create_graph=True)
        return (n.name(), [f.name() if f else None for f, _ in n.next_functions], h,
                h.grad_fn.name())
    check(snippet)


def test_fused_backward_rows_match_finite_differences():
    import numpy as np

    from engine.ops.dispatch import apply
    from engine.ops.table import BACKWARD_OPS

    rng = np.random.default_rng(0)
    for op in BACKWARD_OPS.values():
        g0 = rng.standard_normal(5)
        y0 = rng.uniform(-0.9, 0.9, 5)
        g = engine.tensor(g0, dtype=engine.float64, requires_grad=True)
        y = engine.tensor(y0, dtype=engine.float64, requires_grad=True)
        w = rng.standard_normal(5)
        out = (apply(op, g, y) * engine.tensor(w)).sum()
        dg, dy = engine.autograd.grad(out, (g, y))
        eps = 1e-6
        for k, (_, d) in enumerate(((g0, dg), (y0, dy))):
            for i in range(5):
                up, down = [a.copy() for a in (g0, y0)], [a.copy() for a in (g0, y0)]
                up[k][i] += eps
                down[k][i] -= eps

                def f(args, op=op, w=w):
                    return (op.forward(*args) * w).sum()

                assert abs((f(up) - f(down)) / (2 * eps) - d._data[i]) < 1e-6, (op.name, k, i)


def test_first_order_backward_unchanged_by_fused_rules():
    # the plain backward keeps the array formulas (no fused node, no Tensors)
    check(lambda t: [(lambda x: (t.autograd.grad(f(x).sum(), x)[0]))(
        t.tensor([0.3, -0.5, 2.0], requires_grad=True)) for f in (t.tanh, t.sigmoid)])


# -- 3. autograd.functional caches the Tensor class -----------------------------------------------

def test_functional_caches_the_tensor_class():
    import builtins

    from engine.autograd import functional

    assert functional._tensor_cls() is engine.Tensor
    calls = []
    real_import = builtins.__import__

    def counting_import(name, *args, **kwargs):
        calls.append(name)
        return real_import(name, *args, **kwargs)

    builtins.__import__ = counting_import
    try:
        for _ in range(3):
            assert functional._tensor_cls() is engine.Tensor
    finally:
        builtins.__import__ = real_import
    assert calls == []
