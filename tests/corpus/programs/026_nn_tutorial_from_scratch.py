"""What is torch.nn really? -- Neural net from scratch (no torch.nn).

Source: "What is torch.nn really?" (nn_tutorial), section "Neural net from scratch"
https://pytorch.org/tutorials/beginner/nn_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- The MNIST pickle download (requests, gzip, pickle) replaced by synthetic tensors of the same
  shapes: x_train torch.rand(1000, 784) * 0.2, y_train torch.randint(0, 10, (1000,)), seed 0
  (50000 -> 1000 rows for test time); the plt.imshow preview removed.
- The training loop's epochs = 2 kept.
- The synthetic pixels are scaled by 0.2 (mean 0.1, near MNIST's 0.13): with uniform [0, 1]
  images the tutorial's lr = 0.5 diverges and the run becomes chaotic.
"""
import math
import torch

torch.manual_seed(0)
x_train = torch.rand(1000, 784) * 0.2
y_train = torch.randint(0, 10, (1000,))
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape)
print(y_train.min(), y_train.max())

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 64  # batch size

xb = x_train[0:bs]  # a mini-batch from x
preds = model(xb)  # predictions
preds[0], preds.shape
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll

yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))

lr = 0.5  # learning rate
epochs = 2  # how many epochs to train for

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
