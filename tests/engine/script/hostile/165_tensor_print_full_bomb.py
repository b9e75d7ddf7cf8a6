# expect: limit line 5
import torch
torch.set_printoptions(threshold=10**5)
x = torch.rand(300, 300)
print(x)
