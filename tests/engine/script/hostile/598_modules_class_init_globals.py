# expect: forbidden line 4
import torch.nn as nn
m = nn.Linear(2, 2)
g = m._modules.__class__.__init__.__globals__
