# expect: forbidden line 5
# namedtuple API names only on the script's namedtuple classes (not on other tuples)
import torch
s = torch.Size([1, 2])
x = s._make
