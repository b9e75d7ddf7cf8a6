"""The interpreter refuses an engine layer too large to allocate before it allocates it, and never
mistakes a script's own module's constructor arguments for sizes (d2l's dropout chapter builds
``Net(784, 10, 256, 256)``: the product of its arguments is no parameter count)."""

from __future__ import annotations

import pytest

from engine.script import ScriptError, run

D2L_NET = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super().__init__()
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)

net = Net(784, 10, 256, 256)
n = sum(p.numel() for p in net.parameters())
"""


def test_a_scripts_module_is_not_sized_by_its_arguments():
    assert run(D2L_NET)["n"] == 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10


def test_an_engine_layer_too_large_is_refused_before_allocating():
    with pytest.raises(ScriptError) as info:
        run("import torch\nlayer = torch.nn.Linear(10**5, 10**5)\n")
    assert info.value.kind == "limit" and info.value.line == 2
