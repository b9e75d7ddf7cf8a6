# expect: runtime
import torch
x = torch.ones(2, requires_grad=True)
row = (x * 2).grad_fn.op
