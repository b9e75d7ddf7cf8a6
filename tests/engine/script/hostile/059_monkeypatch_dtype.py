# expect: forbidden
import torch
torch.float32.name = 'int8'
