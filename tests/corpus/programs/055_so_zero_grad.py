"""Why do we need to call zero_grad() in PyTorch? -- the accepted answer's two training loops
(optimizer.zero_grad() with Adam, and the manual W.grad.data.zero_() loop).

Source: Stack Overflow, "Why do we need to call zero_grad() in PyTorch?"
https://stackoverflow.com/questions/48001598/why-do-we-need-to-call-zero-grad-in-pytorch

Written for the gradstep corpus, following the answer's program.
Edits vs the source:
- `data, targets = ...` replaced by synthetic data: 8 samples torch.randn(4) with targets
  torch.randn(3), seed 0.
- `loss = (output - target) ** 2` summed to a scalar (`.sum()`) so that backward() runs
  (the answer's loss is a vector, which backward() refuses).
- learning_rate = 0.01 defined (the answer leaves it undefined); `W -= ...` wrapped in
  torch.no_grad() (in-place updates of leaves that require grad are refused since 0.4).
- A final demonstration of accumulation without zero_grad (the answer's explanation) added.
"""
import torch
from torch.autograd import Variable
import torch.optim as optim


def linear_model(x, W, b):
    return torch.matmul(x, W) + b


torch.manual_seed(0)
data, targets = torch.randn(8, 4), torch.randn(8, 3)

W = Variable(torch.randn(4, 3), requires_grad=True)
b = Variable(torch.randn(3), requires_grad=True)

optimizer = optim.Adam([W, b])

for sample, target in zip(data, targets):
    # clear out the gradients of all Variables
    # in this optimizer (i.e. W, b)
    optimizer.zero_grad()
    output = linear_model(sample, W, b)
    loss = ((output - target) ** 2).sum()
    loss.backward()
    optimizer.step()
print(W, b)

learning_rate = 0.01
W = Variable(torch.randn(4, 3), requires_grad=True)
b = Variable(torch.randn(3), requires_grad=True)
for sample, target in zip(data, targets):
    # clear out the gradients of Variables
    # (i.e. W, b)
    if W.grad is not None:
        W.grad.data.zero_()
        b.grad.data.zero_()

    output = linear_model(sample, W, b)
    loss = ((output - target) ** 2).sum()
    loss.backward()

    with torch.no_grad():
        W -= learning_rate * W.grad.data
        b -= learning_rate * b.grad.data
print(W, b)

# without zeroing, the gradients add up over backward() calls
x = torch.ones(2, requires_grad=True)
for i in range(3):
    (x * 3).sum().backward()
    print(i, x.grad)
