# expect: forbidden line 4
import torch.nn as nn
m = nn.Linear(2, 2)
d = m.__class__.__dict__
