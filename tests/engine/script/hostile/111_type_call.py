# expect: forbidden
import torch
T = type(torch.ones(1))
