"""What is torch.nn really? -- Refactor using nn.Module, nn.Linear and torch.optim.

Source: "What is torch.nn really?" (nn_tutorial), sections "Refactor using nn.Module",
"Refactor using nn.Linear", "Refactor using torch.optim"
https://pytorch.org/tutorials/beginner/nn_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- MNIST replaced by synthetic x_train torch.rand(1000, 784) * 0.2, y_train torch.randint(0, 10,
  (1000,)), seed 0.
- The three refactoring steps are kept in order in one file (Mnist_Logistic with
  nn.Parameter + fit(), then nn.Linear, then optim.SGD with get_model()).
- The synthetic pixels are scaled by 0.2 (mean 0.1, near MNIST's 0.13): with uniform [0, 1]
  images the tutorial's lr = 0.5 diverges and the run becomes chaotic.
"""
import math
import torch
from torch import nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)
x_train = torch.rand(1000, 784) * 0.2
y_train = torch.randint(0, 10, (1000,))
n, c = x_train.shape
bs = 64
lr = 0.5
epochs = 2
loss_func = F.cross_entropy
xb = x_train[0:bs]
yb = y_train[0:bs]


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


model = Mnist_Logistic()
print(loss_func(model(xb), yb))


def fit():
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
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


fit()
print(loss_func(model(xb), yb))


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


model = Mnist_Logistic()
print(loss_func(model(xb), yb))
fit()
print(loss_func(model(xb), yb))


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
print(loss_func(model(xb), yb))

for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()

print(loss_func(model(xb), yb))
