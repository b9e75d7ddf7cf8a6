# expect: forbidden line 4
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2))
init = m._modules.__class__.__init__
