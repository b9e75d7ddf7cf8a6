# expect: forbidden line 4
import torch.nn as nn
m = nn.Linear(2, 2)
m._parameters.__setitem__('weight', 1)
