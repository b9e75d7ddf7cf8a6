# expect: limit line 5
import torch
torch.set_printoptions(profile='full')
x = torch.rand(300, 300)
s = str(x)
