# expect: forbidden
import torch
s = torch.script
