# expect: forbidden line 3
import torch
t = object.__getattribute__(torch.ones(2), "_data")
