# expect: forbidden
import torch
x = torch.from_file('/etc/passwd')
