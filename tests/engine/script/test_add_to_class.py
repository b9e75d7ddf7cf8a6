"""d2l's ``add_to_class``: a decorated ``def`` outside a class body (``__init__`` included) set
on one of the script's classes with ``setattr``, as d2l 1.0's chapters build their models:
differential against real Python + torch (outputs, namespaces, super() in the added method,
nn.Module subclasses). The refusals around it (engine classes, instances, names a class body may
not define, reading the name back) are hostile attacks 672-678."""

from __future__ import annotations

import pytest

from tests.engine.script.script_diff import check_script

SNIPPETS = {
    "d2l_init_and_method": """
import torch
from torch import nn

def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper

class Base(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width

class Net(Base):
    pass

@add_to_class(Net)
def __init__(self, width, out=2):
    super(Net, self).__init__(width)
    torch.manual_seed(0)
    self.fc = nn.Linear(width, out)

@add_to_class(Net)
def forward(self, x):
    return self.fc(x).relu()

@add_to_class(Net)
def __repr__(self):
    return f"Net(width={self.width})"

net = Net(3)
y = net(torch.ones(4, 3))
y.sum().backward()
print(net, y, net.fc.weight.grad, type(net).__name__)
""",
    "zero_argument_super_outside_a_class": """
def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper

class A:
    def __init__(self):
        self.x = 1

class B(A):
    pass

@add_to_class(B)
def __init__(self):
    super().__init__()

b = B()
""",
    "plain_class_dunders": """
class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)

def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
        return obj
    return wrapper

@add_to_class(Vec)
def __add__(self, other):
    return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

@add_to_class(Vec)
def __len__(self):
    return len(self.xs)

v = Vec(1, 2) + Vec(3, 4)
print(v.xs, len(v))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_add_to_class_matches_python(name):
    check_script(SNIPPETS[name])
