"""The two underscore names a script may import (``safety.IMPORTABLE_UNDERSCORE_NAMES``):
``from torch import __version__`` and ``from torch.optim.lr_scheduler import _LRScheduler``,
differential against real torch; every other underscore import stays refused by the checker."""

from __future__ import annotations

import pytest

from engine.script import ScriptError, run
from tests.engine.script.script_diff import check_script

pytest.importorskip("torch")

SNIPPETS = {
    "version": """
import torch
from torch import __version__
from torch import __version__ as release
print(__version__, release == torch.__version__, str(__version__).split('.')[0])
""",
    "old_scheduler_name": """
import torch
from torch.optim.lr_scheduler import _LRScheduler, LRScheduler

class WarmUp(_LRScheduler):
    def __init__(self, optimizer, warmup, last_epoch=-1):
        self.warmup = warmup
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        scale = min(1.0, (self.last_epoch + 1) / self.warmup)
        return [base * scale for base in self.base_lrs]

torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(3))
opt = torch.optim.SGD([w], lr=0.3)
sched = WarmUp(opt, warmup=4)
lrs = []
for step in range(6):
    loss = (w * w).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    lrs.append(opt.param_groups[0]['lr'])
print(isinstance(sched, LRScheduler), issubclass(_LRScheduler, LRScheduler))
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_allowed_underscore_imports_match_torch(name):
    check_script(SNIPPETS[name])


@pytest.mark.parametrize("source", [
    "from torch import _C",
    "from torch import __file__",
    "from torch.optim import _LRScheduler",  # allowed from its own module only
    "from numpy import __version__",
    "from torch.optim.lr_scheduler import __dict__",
    "from torch import __version__\n__version__ = '3'",  # imported, never assigned
    "from torch import _tensor",
])
def test_other_underscore_imports_stay_refused(source):
    with pytest.raises(ScriptError) as err:
        run(source)
    assert err.value.kind == "forbidden"
    assert err.value.line == source.count("\n") + 1
