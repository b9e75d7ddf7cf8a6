# expect: forbidden
import torch
x = torch.ones(1)
s = f'{x.__class__.__init__.__globals__}'
