# expect: forbidden line 6
import torch
a = torch.ones(3, requires_grad=True)
b = a.exp()
b.add_(1)
b._version = 0
