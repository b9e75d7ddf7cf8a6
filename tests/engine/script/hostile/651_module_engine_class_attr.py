# expect: forbidden line 6
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self._version = 0  # the engine's nn.Module class defines it
M()
