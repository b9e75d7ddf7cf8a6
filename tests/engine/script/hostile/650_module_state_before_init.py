# expect: forbidden line 5
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        self._forward_hooks = {0: print}  # Module.__init__'s state, before it runs
        super().__init__()
M()
