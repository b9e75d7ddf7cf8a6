# expect: limit
import torch
x = torch.ones(1).expand(10**6, 10**6)
