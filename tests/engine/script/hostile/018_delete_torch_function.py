# expect: forbidden
import torch
del torch.tensor
