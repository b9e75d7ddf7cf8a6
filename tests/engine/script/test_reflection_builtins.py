"""getattr, hasattr and setattr in scripts (engine/script/reflection.py): what Python and PyTorch
give for the names tutorials compute, and refusals for every name the attribute syntax refuses."""

from __future__ import annotations

import pytest

from engine.script import Interpreter, ScriptError
from tests.engine.script.script_diff import check_script

LAYERS_BY_NAME = """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self, sizes, activation='ReLU'):
        super().__init__()
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            setattr(self, 'fc%d' % i, nn.Linear(a, b))
        self.depth = len(sizes) - 1
        self.act = getattr(nn, activation)()
    def forward(self, x):
        for i in range(self.depth):
            x = self.act(getattr(self, f'fc{i}')(x))
        return x
net = Net([3, 4, 2], 'Tanh')
print(net, net(torch.ones(1, 3)))
for layer in net.children():
    if hasattr(layer, 'reset_parameters'):
        layer.reset_parameters()
print(hasattr(F, 'scaled_dot_product_attention'), hasattr(net, 'fc9'), getattr(net, 'fc9', None))
print(getattr(torch, 'float32'), getattr(net.fc0, 'in_features'), hasattr(3, 'real'))
try:
    getattr(net, 'fc9')
except AttributeError as e:
    print('AttributeError', e)
try:
    getattr(net, 3)
except TypeError as e:
    print('TypeError', e)
"""


@pytest.mark.torch
def test_layers_reached_by_name_match_pytorch():
    pytest.importorskip("torch")
    check_script(LAYERS_BY_NAME)


def _error(source: str) -> ScriptError:
    with pytest.raises(ScriptError) as err:
        Interpreter(source).run()
    return err.value


@pytest.mark.parametrize("line", [
    "getattr(t, '__class__')",
    "getattr(t, '_data')",
    "hasattr(t, '_data')",
    "getattr(f, '__glo' + 'bals__', None)",  # a default never hides a refusal
    "setattr(m, '_modules', {})",
    "setattr(t, 'shape', 1)",
    "setattr(torch, 'ones', f)",
])
def test_names_the_attribute_syntax_refuses_stay_refused(line):
    source = ("import torch\nimport torch.nn as nn\nt = torch.ones(2)\nm = nn.Linear(1, 1)\n"
              "def f():\n    return 1\n" + line + "\n")
    err = _error(source)
    assert err.kind == "forbidden" and err.line == 7, err


def test_an_attribute_name_must_be_an_exact_str():
    # torch.__version__ is a str subclass, as PyTorch's TorchVersion
    err = _error("import torch\ngetattr(torch, torch.__version__)\n")
    assert "must be string" in err.message and err.line == 2
