# expect: forbidden
import torch
x = torch.load('pwned.pt')
