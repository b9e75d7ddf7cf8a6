# expect: forbidden line 5
import torch.nn as nn
class A(nn.Module):
    def f(self):
        return super().__len__.__globals__
