# expect: limit
import torch.nn as nn
layers = [nn.Linear(1000, 1000) for i in range(100)]
