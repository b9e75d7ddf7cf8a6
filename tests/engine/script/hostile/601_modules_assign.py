# expect: forbidden line 4
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2))
m._modules = {'0': nn.ReLU()}
