# expect: forbidden
import torch
x = torch.ones(1)
c = x.__class__
