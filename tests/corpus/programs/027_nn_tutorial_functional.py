"""What is torch.nn really? -- Using torch.nn.functional (F.cross_entropy).

Source: "What is torch.nn really?" (nn_tutorial), section "Using torch.nn.functional"
https://pytorch.org/tutorials/beginner/nn_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- MNIST replaced by synthetic x_train torch.rand(1000, 784) * 0.2, y_train torch.randint(0, 10,
  (1000,)), seed 0; the model of the previous section is rebuilt here so the file runs alone.
- The synthetic pixels are scaled by 0.2 (mean 0.1, near MNIST's 0.13): with uniform [0, 1]
  images the tutorial's lr = 0.5 diverges and the run becomes chaotic.
"""
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x_train = torch.rand(1000, 784) * 0.2
y_train = torch.randint(0, 10, (1000,))
n, c = x_train.shape

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)

loss_func = F.cross_entropy


def model(xb):
    return xb @ weights + bias


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 64
xb = x_train[0:bs]
yb = y_train[0:bs]
print(loss_func(model(xb), yb), accuracy(model(xb), yb))

lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

print(loss_func(model(xb), yb), accuracy(model(xb), yb))
