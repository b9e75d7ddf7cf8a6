# expect: limit
import torch
xs = []
while True:
    xs.append(torch.zeros(10**6))
