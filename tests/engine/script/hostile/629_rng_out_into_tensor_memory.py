# expect: runtime line 5
import torch, numpy as np
rng = np.random.default_rng(0)
t = torch.zeros(3)
rng.random(out=t.numpy())
