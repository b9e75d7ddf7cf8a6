# expect: forbidden line 5
import torch.nn as nn
class M(nn.Module):
    def grab(self):
        return super()._apply
M().grab()
