# expect: limit
import torch
x = torch.arange(0, 10**12)
