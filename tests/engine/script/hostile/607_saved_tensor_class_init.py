# expect: forbidden line 5
import torch
x = torch.ones(3, requires_grad=True)
y = x.pow(2)
init = y.grad_fn._saved_self.__class__.__init__
