# expect: limit line 11
import torch

# LBFGS.step calls its closure in a loop of its own; a closure of engine code alone runs no
# statement of the script, and a fixed gradient never meets the tolerances: each call counts
w = torch.ones(2, requires_grad=True)
w.grad = torch.ones(2)
opt = torch.optim.LBFGS([w], max_iter=10 ** 12, max_eval=10 ** 12, lr=1e-3)
for i in range(199_000):  # most of the statement budget, so that the limit comes soon
    pass
opt.step(w.sum)
