# expect: forbidden line 5
import torch.nn as nn
class M(nn.Module):
    pass
M._modules = {}  # the name of every module's children, on the class
