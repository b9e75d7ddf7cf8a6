# expect: forbidden line 4
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2))
del m._parameters
