# expect: forbidden
import torch
torch.Tensor.add = None
