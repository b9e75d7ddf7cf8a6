"""Snippets run both in real PyTorch (recorded) and in the engine, to compare their graphs.

Each snippet is source code run with ``torch``, ``nn``, ``F`` and ``Variable`` bound (to real
torch or to the engine) and ``ROOT`` naming the tensor whose ``backward()`` is recorded. Values
come from explicit numbers (the engine's random stream is not torch's).
"""

from __future__ import annotations

SNIPPETS = {
    "seed_demo": ("z", """
t1 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = t1 * t1 + 1
y.retain_grad()
z = y.sum()
"""),
    "variable_demo": ("out", """
x = Variable(torch.ones(2, 2), requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
"""),
    "mlp_mse": ("loss", """
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6],
                                        [-0.7, 0.8, 0.9], [0.05, -0.15, 0.25]]))
    model[0].bias.copy_(torch.tensor([0.01, -0.02, 0.03, -0.04]))
    model[2].weight.copy_(torch.tensor([[0.3, -0.1, 0.2, 0.7]]))
    model[2].bias.copy_(torch.tensor([0.5]))
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
target = torch.tensor([[1.0], [-1.0]])
loss = nn.MSELoss()(model(x), target)
"""),
    "cross_entropy": ("loss", """
w = torch.tensor([[0.2, -0.5], [1.0, 0.3], [-0.4, 0.8]], requires_grad=True)
b = torch.tensor([0.1, -0.1, 0.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [0.5, -1.0], [-2.0, 0.25], [3.0, 1.0]])
logits = x @ w.t() + b
labels = torch.tensor([0, 2, 1, 2])
loss = F.cross_entropy(logits, labels)
"""),
    "matmul_chain": ("s", """
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, -1.0, 0.5], [2.0, 0.0, 1.0, -0.5]],
                 requires_grad=True)
c = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]], requires_grad=True)
s = (a @ b @ c).sum()
"""),
    "batched_matmul": ("s", """
x = torch.arange(12.0).reshape(2, 2, 3).requires_grad_()
w = torch.tensor([[0.5, -1.0], [1.0, 0.25], [-0.5, 2.0]], requires_grad=True)
s = (x @ w).pow(2).mean()
"""),
    "indexing": ("s", """
x = torch.arange(12.0).reshape(3, 4).requires_grad_()
first = x[0]
tail = x[1:, ::2]
picked = x[torch.tensor([0, 2])]
s = first.sum() + (tail * 2).sum() + picked.mean()
"""),
    "cat_stack": ("s", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, -4.0], requires_grad=True)
c = torch.cat([a, b * 2])
d = torch.stack([a, b], dim=0)
s = (c * c).sum() + d.sum(dim=0).pow(3).sum()
"""),
    "in_place": ("s", """
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 2
y.add_(1)
y.mul_(3)
s = y.sum()
"""),
    "in_place_slice": ("s", """
x = torch.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
y = x.clone()
y[1:3] = 0.0
s = (y * x).sum()
"""),
    "broadcasting": ("m", """
a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
b = torch.tensor([[0.5, -0.5, 1.5, 2.0]], requires_grad=True)
m = (a + b).mean() * (a * b).sum()
"""),
    "activations": ("s", """
x = torch.tensor([0.5, -1.0, 2.0, -0.25], requires_grad=True)
h = torch.sigmoid(x) + torch.tanh(x) + torch.relu(x)
s = torch.log(torch.exp(h) + 1).sum()
"""),
    "softmax_nll": ("loss", """
z = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
p = F.log_softmax(z, dim=1)
loss = F.nll_loss(p, torch.tensor([1, 2])) + F.softmax(z, dim=0)[0, 1]
"""),
    "pow_sqrt_div": ("s", """
x = torch.tensor([1.0, 4.0, 9.0], requires_grad=True)
y = torch.tensor([2.0, 0.5, 1.0], requires_grad=True)
s = ((x ** 2) / (y + 1)).sqrt().sum() + (1 / x).sum()
"""),
    "views": ("s", """
x = torch.arange(6.0).requires_grad_()
v = x.view(2, 3).t().reshape(-1)
u = x.reshape(3, 2).permute(1, 0).unsqueeze(0)
s = (v * torch.arange(6.0)).sum() + u.squeeze(0).transpose(0, 1).sum()
"""),
    "shared_leaf": ("s", """
x = torch.tensor([2.0, -1.0], requires_grad=True)
s = (x * x * x).sum() + (x * x).mean()
"""),
    "reductions": ("s", """
x = torch.tensor([[1.0, 5.0, 2.0], [7.0, -3.0, 0.5]], requires_grad=True)
s = x.max() + x.mean(dim=1, keepdim=True).sum() + x.amax(dim=0).sum() + x.sum(dim=1).pow(2).sum()
"""),
    "clamp_where": ("s", """
x = torch.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
y = torch.where(x > 0, x * 3, x.clamp(min=-1.0))
s = y.abs().sum()
"""),
    "expand": ("s", """
x = torch.tensor([[1.0], [2.0]], requires_grad=True)
s = (x.expand(2, 3) * torch.tensor([1.0, 2.0, 3.0])).sum()
"""),
    "fan_out": ("s", """
x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)

def f(v):
    h = torch.tanh(v * 2)  # an unnamed intermediate with four uses: torch sums them in order
    return (h * h).sum() + h.mean() + h[0] + (h / 3).sum()

s = f(x)
"""),
    "bce_logits": ("loss", """
w = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
loss = F.binary_cross_entropy_with_logits(x @ w, torch.tensor([1.0, 0.0]))
"""),
}
