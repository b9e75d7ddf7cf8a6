# expect: forbidden line 9
import torch.nn as nn
def helper():
    return 1
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self._f = helper  # the script's own name; the function's internals stay closed
M()._f._interp
