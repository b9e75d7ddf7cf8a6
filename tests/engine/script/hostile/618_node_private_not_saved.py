# expect: forbidden line 5
import torch
x = torch.ones(3, requires_grad=True)
y = x.pow(2)
op = y.grad_fn._saved_op
