# expect: forbidden
import torch
torch.tensor = lambda *a: 0
