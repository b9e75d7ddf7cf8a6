# expect: forbidden line 5
import torch
class A(object):
    pass
t = object.__new__(torch.Tensor)
