# expect: forbidden line 8
import torch.nn as nn


def init(self):
    pass

setattr(nn.Linear, '__init__', init)
