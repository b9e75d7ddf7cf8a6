# expect: limit line 5
import torch
import numpy as np
t = torch.ones(50000, 1)
c = t * np.ones(50000)
