# expect: limit line 10
import torch

# the same endless closure as 679, with step() called through the class, unbound
w = torch.ones(2, requires_grad=True)
w.grad = torch.ones(2)
opt = torch.optim.LBFGS([w], max_iter=10 ** 12, max_eval=10 ** 12, lr=1e-3)
for i in range(199_000):  # most of the statement budget, so that the limit comes soon
    pass
torch.optim.LBFGS.step(opt, closure=w.sum)
