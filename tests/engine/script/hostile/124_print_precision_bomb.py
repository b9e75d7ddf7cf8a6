# expect: limit
import torch
torch.set_printoptions(precision=10**9)
