# expect: limit line 12
import torch

# LBFGS keeps a list of history_size slots (state["al"]): 8 GB of pointers for 10**9
w = torch.ones(2, requires_grad=True)
opt = torch.optim.LBFGS([w], history_size=10 ** 9)
def closure():
    opt.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    return loss
opt.step(closure)
