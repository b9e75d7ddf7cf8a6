# expect: limit
import torch.nn as nn
layer = nn.Linear(10**5, 10**5)
