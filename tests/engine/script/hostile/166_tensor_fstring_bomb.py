# expect: limit line 5
import torch
torch.set_printoptions(threshold=10**5, precision=50)
x = torch.rand(90000)
s = f'{x}'
