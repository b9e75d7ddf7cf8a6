# expect: forbidden
import torch
g = torch.nn.Module.__init__.__globals__
