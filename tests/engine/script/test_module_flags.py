"""The module flags a script may set (safety.SETTABLE_MODULE_FLAGS: torch.backends.cudnn's
deterministic, benchmark, enabled, allow_tf32): read back as set, bools only, as PyTorch's
setters, and kept in the run, never in the engine's module that every run shares."""

from __future__ import annotations

import pytest

import engine
from engine.script import Interpreter, ScriptError
from tests.engine.script.script_diff import check_script

REPRODUCIBLE = """
import torch
torch.manual_seed(0)
print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
setattr(torch.backends.cudnn, 'allow_tf32', False)
from torch.backends.cudnn import deterministic
print(torch.backends.cudnn.deterministic, torch.backends.cudnn.allow_tf32, deterministic)
torch.backends.cudnn.deterministic = False  # as it was (real torch's flag is the process's)
torch.backends.cudnn.allow_tf32 = True
"""


@pytest.mark.torch
def test_reproducibility_flags_read_back_as_pytorch():
    pytest.importorskip("torch")
    check_script(REPRODUCIBLE)


@pytest.mark.torch
def test_a_flag_takes_a_bool_only():
    pytest.importorskip("torch")
    check_script("import torch\ntorch.backends.cudnn.benchmark = 'yes'\n")


def test_a_run_s_flags_stay_in_the_run():
    first = Interpreter("import torch\ntorch.backends.cudnn.deterministic = True\n")
    first.run()
    assert engine.backends.cudnn.deterministic is False
    second = Interpreter("import torch\nprint(torch.backends.cudnn.deterministic)\n")
    second.run()
    assert "".join(second.output).split() == ["False"]


def test_other_module_attributes_stay_unassignable():
    with pytest.raises(ScriptError) as err:
        Interpreter("import torch\ntorch.backends.cudnn.version = 3\n").run()
    assert err.value.kind == "forbidden" and err.value.line == 2
