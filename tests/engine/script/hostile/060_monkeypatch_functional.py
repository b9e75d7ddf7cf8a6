# expect: forbidden
import torch.nn.functional as F
F.relu = lambda x: x
