"""A script's own learning-rate schedule (a warm-up, as tutorials write them) derives from
torch.optim.lr_scheduler.LRScheduler and gives what PyTorch gives."""

from __future__ import annotations

import pytest

from tests.engine.script.script_diff import check_script

WARMUP = """
import torch
from torch.optim.lr_scheduler import LRScheduler
class WarmupLinear(LRScheduler):
    def __init__(self, optimizer, warmup, total, last_epoch=-1):
        self.warmup = warmup
        self.total = total
        super().__init__(optimizer, last_epoch)
    def get_lr(self):
        step = self.last_epoch
        if step < self.warmup:
            scale = (step + 1) / self.warmup
        else:
            scale = max(0.0, (self.total - step) / (self.total - self.warmup))
        return [base_lr * scale for base_lr in self.base_lrs]
w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.5)
sched = WarmupLinear(opt, warmup=3, total=10)
for i in range(8):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
    sched.step()
    print(i, sched.get_last_lr(), opt.param_groups[0]['lr'])
print(sched.state_dict()['last_epoch'], sched.base_lrs, w)
"""


@pytest.mark.torch
def test_a_warmup_schedule_of_the_script_matches_pytorch():
    pytest.importorskip("torch")
    check_script(WARMUP)
