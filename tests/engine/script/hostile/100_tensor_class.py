# expect: forbidden
import torch
x = torch.ones(1)
c = x.__class__.__mro__[-1].__subclasses__()
