# expect: forbidden line 4
import torch
t = torch.ones(2)
t._version += 1
