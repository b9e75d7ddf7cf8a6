# expect: limit line 4
import torch
x = torch.zeros(1000, 1000)
xs = x.tolist()
