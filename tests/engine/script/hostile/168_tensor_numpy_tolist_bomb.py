# expect: limit line 4
import torch
x = torch.ones(500, 1000)
xs = [x.numpy().tolist() for i in range(100)]
