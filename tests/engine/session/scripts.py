"""Scripts the session tests run (line numbers matter: the tests refer to them)."""

SEED_DEMO = """\
import torch as T
x = [1.0, 2.0, 3.0]
t1 = T.tensor(x, dtype=T.float32, requires_grad=True)
t2 = t1 * t1 + 1
t2.retain_grad()
z = t2.sum()
z.backward()
done = True
"""

FUNCTION_AND_LOOP = """\
def f(a):
    b = a + 1
    return b
total = 0
for i in range(3):
    total = f(total)
print(total)
"""

NAN_FROM_LOG = """\
import torch
p = torch.tensor([0.5, 0.0], requires_grad=True)
logp = torch.log(p)
loss = -(logp * torch.tensor([1.0, 0.0])).sum()
loss.backward()
"""

SGD_LOOP = """\
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
for i in range(3):
    opt.zero_grad()
    loss = (w * w).sum()
    loss.backward()
    opt.step()
"""

# Seed 000's mistake: no zero_grad(), so .grad sums one contribution per iteration.
FORGOT_ZERO_GRAD = """\
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.01)
for i in range(3):
    loss = (w * 3).sum()
    loss.backward()
    opt.step()
"""

RANDOM_TRAINING = """\
import torch
w = torch.randn(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
for i in range(4):
    opt.zero_grad()
    x = torch.randn(3)
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
print("final", w.sum().item())
"""

LONG_LOOP = """\
import torch
w = torch.ones(2, requires_grad=True)
for i in range(100000):
    loss = (w * 2).sum()
"""

DETACHED_LAYER = """\
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.fc2 = nn.Linear(3, 1)
    def forward(self, x):
        h = self.fc1(x).detach()
        return self.fc2(h)
model = Net()
loss = model(torch.ones(4, 2)).sum()
loss.backward()
"""

NONLEAF_GRAD = """\
import torch
a = torch.tensor([1.0], requires_grad=True)
b = a * 2
b.sum().backward()
g = b.grad
"""

NON_SCALAR = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.backward()
"""
