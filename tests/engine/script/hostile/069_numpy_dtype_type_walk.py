# expect: forbidden
import torch
t = torch.float32.np.type
t.tofile(t(1.0), 'pwned.bin')
