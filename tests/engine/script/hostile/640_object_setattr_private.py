# expect: forbidden line 5
import torch
class A(object):
    pass
object.__setattr__(torch.ones(2), "_version", 0)
