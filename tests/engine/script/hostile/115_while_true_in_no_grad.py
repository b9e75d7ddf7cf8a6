# expect: limit
import torch
with torch.no_grad():
    while True:
        pass
