# expect: limit
import torch
x = torch.tensor(range(10**12))
