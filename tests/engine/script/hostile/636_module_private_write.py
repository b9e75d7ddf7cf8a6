# expect: forbidden line 6
import torch.nn as nn
class M(nn.Module):
    def keep(self):
        self._parameters_backup = self._parameters  # a name of the script's own: allowed
        self._parameters = {}  # the engine's own state of the module
M().keep()
