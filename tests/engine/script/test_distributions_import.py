"""``torch.distributions`` in scripts: the package, its submodules and its classes import as in
PyTorch (modules.ENGINE_PACKAGES maps them onto ``engine.distributions``), and its private or
refused parts do not."""

from __future__ import annotations

import pytest

from engine.script import Interpreter, ScriptError
from tests.engine.script.script_diff import check_script

pytest.importorskip("engine.distributions")

IMPORTS = {
    "from_package": """
import torch
from torch.distributions import Categorical, Normal
c = Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))
print(c.log_prob(torch.tensor(2)), Normal(0.0, 1.0).log_prob(torch.tensor(0.5)))
""",
    "package_alias": """
import torch
import torch.distributions as D
print(D.Normal(torch.tensor(1.0), torch.tensor(2.0)).entropy())
print(torch.distributions.Normal is D.Normal)
""",
    "submodule": """
import torch
import torch.distributions.normal
from torch.distributions.categorical import Categorical
print(torch.distributions.normal.Normal(0.0, 2.0).stddev, Categorical(logits=torch.zeros(4)).probs)
""",
    "d2l_multinomial": """
import torch
from torch.distributions.multinomial import Multinomial
fair_probs = torch.ones([6]) / 6
print(Multinomial(10, fair_probs).log_prob(torch.tensor([1.0, 2.0, 3.0, 0.0, 4.0, 0.0])))
""",
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(IMPORTS))
def test_import_matches_pytorch(name):
    pytest.importorskip("torch")
    check_script(IMPORTS[name])


@pytest.mark.parametrize("source", [
    "import torch.distributions._private",
    "from torch.distributions import _private",
    "import torch.distributions.utils",  # modules.DENIED_MODULE_NAMES, wherever it stands
])
def test_private_and_denied_parts_are_refused(source):
    with pytest.raises(ScriptError) as err:
        Interpreter(source + "\n").run()
    assert err.value.kind == "forbidden" and err.value.line == 1


def test_a_missing_name_is_an_import_error():
    with pytest.raises(ScriptError) as err:
        Interpreter("from torch.distributions import NoSuchThing\n").run()
    assert err.value.kind == "runtime" and isinstance(err.value.__cause__, ImportError)


def test_dir_of_torch_lists_the_submodules_there_are():
    interp = Interpreter("import torch\nnames = dir(torch)\n")
    names = interp.run()["names"]
    assert "distributions" in names and "nn" in names
    assert "linalg" not in names or __import__("importlib").util.find_spec("engine.linalg")
