# expect: limit line 4
import torch
x = torch.zeros(1000, 1000)
ok = x.sum().item() == 0 and x.tolist()
