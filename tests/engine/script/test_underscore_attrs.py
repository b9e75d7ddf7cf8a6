"""The few underscore attributes a script may read (engine/script/underscore.py): each gives what
real PyTorch gives, on the objects where it is allowed, and is refused everywhere else and for
every write or delete."""

from __future__ import annotations

import pytest

from engine.script import Interpreter, ScriptError
from tests.engine.script.script_diff import check_script

READS = {
    "modules_sequential": """
import torch
from torch import nn
torch.manual_seed(0)
class Stack(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        for k in range(depth):
            self._modules['layer%d' % k] = nn.Linear(width, width)
    def forward(self, x):
        return sum(m(x) for m in self._modules.values())
net = Stack(3, 2)
print(list(net._modules), [type(m).__name__ for m in net._modules.values()])
print(len(list(net.parameters())), net(torch.ones(2, 3)))
""",
    "parameters_and_buffers": """
import torch
from torch import nn
torch.manual_seed(0)
bn = nn.BatchNorm1d(3)
print(sorted(bn._parameters), sorted(bn._buffers), list(bn._modules))
lin = nn.Linear(2, 2)
print(lin._parameters['weight'] is lin.weight)
""",
    "tensor_version": """
import torch
a = torch.zeros(3)
v0 = a._version
a.add_(1)
a[0] = 5
print(v0, a._version, type(a._version).__name__, a._version == 2)
""",
    "class_names": """
import torch
from torch import nn
x = torch.ones(2, requires_grad=True)
print(x.__class__.__name__, nn.Linear(1, 1).__class__.__name__, (x > 0).__class__.__name__)
print(x.__class__ is torch.Tensor, isinstance(x, x.__class__), (3).__class__.__name__)
""",
    "saved_tensors": """
import torch
torch.manual_seed(0)
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self), y.grad_fn._saved_exponent)
z = x.exp()
print(z.equal(z.grad_fn._saved_result))
""",
    "script_function_text": """
def area(r):
    '''The area of a circle of radius r.'''
    return 3.14159 * r * r
class Box:
    '''A box.'''
    pass
square = lambda v: v * v
print(area.__name__, area.__qualname__, area.__module__, area.__doc__)
print(Box.__name__, Box.__qualname__, Box.__module__, Box.__doc__, square.__doc__)
""",
    "script_own_names": """
import torch
from torch import nn
class Counter:
    _made = 0
    def __init__(self):
        self._count = 0
        Counter._made += 1
    def _bump(self):
        self._count += 1
        return self._count
c = Counter()
c._bump(); c._bump()
c._extra = 5
del c._extra
print(c._count, Counter._made, c._bump())
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.apply(self._init_weights)
    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
            nn.init.zeros_(m.bias)
    def forward(self, x):
        return self.fc(x)
print(Net()(torch.ones(1, 3)))
class Loud(Counter):
    def _bump(self):
        return 10 * super()._bump()
print(Loud()._bump())
""",
    "data_model_methods": """
import torch
from torch.utils.data import Dataset
class Squares(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return i * i
ds = Squares()
print(ds.__len__(), ds.__getitem__(3), [ds[i] for i in range(len(ds))])
t = torch.tensor([1.0, 2.0])
print(t.__add__(1), t.__mul__(t), t.__len__(), t.__getitem__(1))
class A:
    def __len__(self):
        return 1
class B(A):
    def __len__(self):
        return super().__len__() + 1
print(len(B()), B().__len__())
""",
    "module_own_names": """
import copy
import torch
from torch import nn
torch.manual_seed(0)
class Net(nn.Module):
    _made = 0
    _scale = None
    def __init__(self, hidden):
        super().__init__()
        self._hidden = hidden
        self._cache = {}
        self._scale = 2.0
        self._fc = nn.Linear(3, hidden)
        self.register_buffer('_mask', torch.ones(hidden))
        Net._made += 1
    def forward(self, x):
        out = self._fc(x) * self._mask * self._scale
        self._cache['last'] = out.detach()
        return out
net = Net(2)
y = net(torch.ones(1, 3))
print(net._hidden, sorted(net._cache), Net._made, net._scale)
print([n for n, _ in net.named_parameters()])
print(list(net.state_dict()), net)
net._hidden += 1
del net._cache
twin = copy.deepcopy(net)
print(twin._hidden, twin._fc is not net._fc, twin._mask.equal(net._mask), Net._made)
print(copy.copy(net)._hidden, y)
""",
    "module_own_names_unset": """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        self._early = 1  # before Module.__init__: a plain value is allowed, as in PyTorch
        super().__init__()
print(Net()._early)
try:
    Net()._never_set
except AttributeError as e:
    print('AttributeError', e)
""",
    "init_spellings": """
import torch
from torch import nn
class Point(object):
    def __init__(self, x):
        object.__init__(self)
        self.x = x
class Point3(Point):
    def __init__(self, x, z):
        super(Point3, self).__init__(x)
        self.z = z
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = nn.Linear(2, 1)
class Deeper(Net):
    def __init__(self):
        super(self.__class__, self).__init__()
class Maker:
    @classmethod
    def make(cls):
        return cls()
class Made(Maker):
    @classmethod
    def make(cls):
        return super(Made, cls).make()
p = Point3(1, 2)
print(p.x, p.z, Deeper(), type(Made.make()).__name__)
try:
    object.__init__(p, 3)
except TypeError as e:
    print('TypeError', e)
""",
    "torch_version": """
import torch
print(torch.__version__, torch.version.__version__, torch.version.cuda, torch.version.hip)
print(torch.__version__ >= '2.0', torch.__version__ > '2.2', torch.__version__ < (3, 0),
      torch.__version__ == '2.13.0+cpu', torch.__version__ != '2.13.0', torch.version.debug)
print(torch.__version__.split('+')[0], int(torch.__version__.split('.')[0]) >= 2)
print(type(torch.__version__), type(torch.version.__version__))
import numpy as np
print(np.__version__)
""",
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(READS))
def test_read_matches_pytorch(name):
    pytest.importorskip("torch")
    check_script(READS[name])


def run(source: str) -> str:
    interp = Interpreter(source)
    interp.run()
    return "".join(interp.output)


def error_of(source: str) -> ScriptError:
    with pytest.raises(ScriptError) as err:
        Interpreter(source).run()
    return err.value


def test_version_is_a_snapshot_not_the_live_counter():
    out = run("import torch\nt = torch.zeros(2)\nv = t._version\nt.add_(1)\nprint(v, t._version)")
    assert out.split() == ["0", "1"]


def test_module_of_a_caller_named_class_is_the_script():
    # typing.TypeVar names the module of its caller: the interpreter's, never shown
    assert run("import typing\nT = typing.TypeVar('T')\nprint(T.__module__)").strip() == "__main__"


PRELUDE = ("import torch\nfrom torch import nn\nm = nn.Sequential(nn.Linear(2, 2))\n"
           "t = torch.ones(2, requires_grad=True)\ny = t.pow(2)\n"
           "class C:\n    pass\nc = C()\n")

REFUSED = [
    "m._modules = {}",  # assigning a readable one
    "m._parameters['w'] = 1; m._buffers = None",
    "del m._modules",
    "t._version = 0",
    "t._version += 1",
    "C.__doc__ = 'x'",
    "c.__class__ = C",
    "t._modules",  # a Module store of a tensor
    "nn.Sequential._modules",  # of the class, not an instance
    "m._version",
    "y.grad_fn._saved_op",  # not one of the saved-value properties
    "t._saved_self",
    "t.__class__.__bases__",
    "t.__class__.__mro__",
    "type(t).__subclasses__()",
    "t.__class__.__init__",
    "m._modules.__class__.__init__",
    "m.__dict__",
    "t.__getattribute__('grad')",
    "t.__setattr__('grad', None)",
    "t.__reduce_ex__(2)",
    "(1).__format__('>9')",
    "(10).__round__(-2)",
    "[0].__mul__(3)",
    "print.__doc__",
    "torch.__doc__",
    "type(t).__class__('X', (), {})",
    "m._forward_hooks",  # the engine's own state of a module
    "torch._C",
    "t._data",
    "C._secret_of_engine = 1; nn.Linear._x",  # single-underscore names of engine classes
]

SCRIPT_MODULE = PRELUDE + """
class Net(nn.Module):
    def _forward_hooks(self):
        return 1
    def go(self):
        self._cache = 1
    def spoil(self):
        self._buffers = {}
"""


@pytest.mark.parametrize("line", [
    "Net()._forward_hooks",  # a method of the script's class, shadowed by the engine's state
    "del Net()._forward_hooks",
    "Net().spoil()",  # Module.__init__'s state: never the script's
    "n = Net(); n._training = 1; n._non_persistent_buffers_set = set()",
    "Net._version = 2",  # defined by the engine's Module class
    "n = Net(); n.go(); n._cache = 2; del n._cache; del n._parameters",
])
def test_module_subclass_state_stays_the_engine_s(line):
    err = error_of(SCRIPT_MODULE + line + "\n")
    assert err.kind == "forbidden", err


@pytest.mark.parametrize("line", REFUSED)
def test_refused(line):
    err = error_of(PRELUDE + line + "\n")
    assert err.kind == "forbidden", err
    assert err.line == PRELUDE.count("\n") + 1


def test_refusal_says_where_the_name_is_readable():
    err = error_of(PRELUDE + "t._modules\n")
    assert "nn.Module" in err.message


def test_module_subclass_names_of_the_script_are_its_own():
    # set, read, changed, deleted; the refusal of a deleted one is Python's AttributeError
    out = run(SCRIPT_MODULE + "n = Net()\nn.go()\nn._cache += 1\nprint(n._cache)\n"
              "del n._cache\ntry:\n    n._cache\nexcept AttributeError:\n    print('gone')\n")
    assert out.split() == ["2", "gone"]


def test_a_name_the_engine_sets_after_the_script_is_the_engine_s():
    # the script set it first, the engine's __init__ replaced it: the engine's value stays hidden
    err = error_of("import torch.nn as nn\nclass A(nn.MultiheadAttention):\n"
                   "    def __init__(self):\n        self._qkv_same_embed_dim = 5\n"
                   "        super().__init__(4, 2)\nA()._qkv_same_embed_dim\n")
    assert err.kind == "forbidden" and err.line == 6


def test_refusal_of_an_engine_name_says_which_base_uses_it():
    err = error_of(SCRIPT_MODULE + "Net().spoil()\n")
    assert "Module" in err.message and "pick another" in err.message
