# expect: forbidden line 3
import torch.nn as nn
f = nn.Module._call_impl
