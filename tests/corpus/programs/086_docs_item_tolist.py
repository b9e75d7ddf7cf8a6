"""torch.Tensor.item and torch.Tensor.tolist -- the documentation's examples, and loss.item()
in a training loop.

Source: PyTorch documentation, "torch.Tensor.item" and "torch.Tensor.tolist"
https://pytorch.org/docs/stable/generated/torch.Tensor.item.html
https://pytorch.org/docs/stable/generated/torch.Tensor.tolist.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) instead of the unseeded torch.randn(2, 2) of the tolist example.
"""
import torch

x = torch.tensor([1.0])
print(x.item())

a = torch.tensor([[1, 2], [3, 4]])
print(a.tolist())
torch.manual_seed(0)
a = torch.randn(2, 2)
print(a.tolist())
print(a[0, 0].tolist())
print(type(a[0, 0].item()), type(torch.tensor(3).item()), type(torch.tensor(True).item()))

w = torch.tensor([1.0, -2.0], requires_grad=True)
losses = []
for _ in range(3):
    loss = (w ** 2).sum()
    losses.append(loss.item())
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
print(losses)
try:
    torch.tensor([1.0, 2.0]).item()
except RuntimeError as e:
    print("RuntimeError:", e)
