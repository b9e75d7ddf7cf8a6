# expect: limit
import torch
x = torch.ones(10**5, 1) + torch.ones(1, 10**5)
