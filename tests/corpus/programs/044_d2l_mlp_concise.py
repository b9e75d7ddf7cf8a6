"""Dive into Deep Learning (classic edition), 4.3 Concise Implementation of Multilayer
Perceptrons.

Source: d2l.ai classic "Concise Implementation of Multilayer Perceptrons" (PyTorch tab)
https://classic.d2l.ai/chapter_multilayer-perceptrons/mlp-concise.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- d2l.load_data_fashion_mnist replaced by synthetic DataLoaders of the same shapes (512/128
  images, seed 0); d2l.train_ch3 replaced by the same loop printing per epoch, num_epochs
  10 -> 3.
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
net = nn.Sequential(nn.Flatten(),
                    nn.Linear(784, 256),
                    nn.ReLU(),
                    nn.Linear(256, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)

batch_size, lr, num_epochs = 256, 0.1, 3
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=lr)

train_iter, test_iter = load_data_fashion_mnist(batch_size)
for epoch in range(num_epochs):
    net.train()
    total_loss, correct, n = 0.0, 0.0, 0
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total_loss += float(l.sum())
        correct += float((y_hat.argmax(axis=1) == y).sum())
        n += y.numel()
    net.eval()
    with torch.no_grad():
        test_acc = sum(float((net(X).argmax(axis=1) == y).sum()) for X, y in test_iter) / 128
    print(f'epoch {epoch + 1}: loss {total_loss / n:.4f}, train acc {correct / n:.4f}, '
          f'test acc {test_acc:.4f}')
