# expect: forbidden
import torch
a = torch.ones(3).numpy()
a.tofile('pwned.bin')
