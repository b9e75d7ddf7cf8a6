# expect: forbidden
import torch.nn as nn
nn.Linear.forward = lambda self, x: x
