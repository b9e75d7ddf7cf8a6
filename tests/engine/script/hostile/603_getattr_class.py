# expect: forbidden line 4
import torch
x = torch.ones(1)
c = getattr(x, '__class__')
