# expect: forbidden line 8
import torch
w = torch.ones(3, requires_grad=True)
opt = torch.optim.Adadelta([w])
w.sum().backward()
opt.step()
state = opt.state[w]
raw = state["acc_delta"]._data
