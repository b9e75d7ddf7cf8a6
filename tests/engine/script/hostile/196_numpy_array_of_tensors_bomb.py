# expect: limit line 5
import torch
import numpy as np
t = torch.ones(1000, 1000)
a = np.array([t] * 100)
