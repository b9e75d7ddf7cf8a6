# expect: forbidden line 5
import torch
x = torch.ones(1)
meta = x.__class__.__class__
C = meta('C', (), {})
