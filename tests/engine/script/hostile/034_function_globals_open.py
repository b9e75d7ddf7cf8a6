# expect: forbidden
import torch
b = torch.tensor.__globals__['__builtins__']
b['open']('pwned.txt', 'w')
