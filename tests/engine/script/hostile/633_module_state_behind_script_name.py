# expect: forbidden line 6
import torch.nn as nn
class M(nn.Module):
    def _forward_hooks(self):  # shadowed by the engine's own state of the module
        return None
h = M()._forward_hooks
