# expect: forbidden line 5
import torch.nn as nn
class M(nn.Module):
    def keep(self):
        self._parameters_backup = self._parameters
M().keep()
