# expect: forbidden line 4
import torch
x = torch.ones(1)
s = type(x).__subclasses__()
