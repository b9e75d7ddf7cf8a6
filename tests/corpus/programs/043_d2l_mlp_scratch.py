"""Dive into Deep Learning (classic edition), 4.2 Implementation of Multilayer Perceptrons from
Scratch.

Source: d2l.ai classic "Implementation of Multilayer Perceptrons from Scratch" (PyTorch tab)
https://classic.d2l.ai/chapter_multilayer-perceptrons/mlp-scratch.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- d2l.load_data_fashion_mnist replaced by synthetic DataLoaders of the same shapes (512/128
  images, seed 0); d2l.train_ch3 replaced by the same loop printing per epoch, num_epochs
  10 -> 3; d2l.predict_ch3 (image grid) removed.
"""
import torch
from torch import nn
from torch.utils import data


def load_data_fashion_mnist(batch_size):
    train = data.TensorDataset(torch.rand(512, 1, 28, 28), torch.randint(0, 10, (512,)))
    test = data.TensorDataset(torch.rand(128, 1, 28, 28), torch.randint(0, 10, (128,)))
    return (data.DataLoader(train, batch_size, shuffle=True),
            data.DataLoader(test, batch_size, shuffle=False))


torch.manual_seed(0)
batch_size = 256
train_iter, test_iter = load_data_fashion_mnist(batch_size)

num_inputs, num_outputs, num_hiddens = 784, 10, 256

W1 = nn.Parameter(torch.randn(
    num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(
    num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))

params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)  # Here '@' stands for matrix multiplication
    return (H @ W2 + b2)


loss = nn.CrossEntropyLoss(reduction='none')

num_epochs, lr = 3, 0.1
updater = torch.optim.SGD(params, lr=lr)

for epoch in range(num_epochs):
    total_loss, correct, n = 0.0, 0.0, 0
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        total_loss += float(l.sum())
        correct += float((y_hat.argmax(axis=1) == y).sum())
        n += y.numel()
    with torch.no_grad():
        test_acc = sum(float((net(X).argmax(axis=1) == y).sum()) for X, y in test_iter) / 128
    print(f'epoch {epoch + 1}: loss {total_loss / n:.4f}, train acc {correct / n:.4f}, '
          f'test acc {test_acc:.4f}')
