"""Dive into Deep Learning (classic edition), 3.7 Concise Implementation of Softmax Regression.

Source: d2l.ai classic "Concise Implementation of Softmax Regression" (PyTorch tab)
https://classic.d2l.ai/chapter_linear-networks/softmax-regression-concise.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- d2l.load_data_fashion_mnist replaced by synthetic DataLoaders of the same shapes (512/128
  images torch.rand(N, 1, 28, 28), labels torch.randint(0, 10, (N,))), seed 0.
- d2l.train_ch3 (plots) replaced by the same loop printing loss/accuracy per epoch;
  num_epochs 10 -> 3.
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

# PyTorch does not implicitly reshape the inputs. Thus we define the flatten
# layer to reshape the inputs before the linear layer in our network
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
print(net)

loss = nn.CrossEntropyLoss(reduction='none')

trainer = torch.optim.SGD(net.parameters(), lr=0.1)


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


num_epochs = 3
for epoch in range(num_epochs):
    net.train()
    total_loss, total_acc, n = 0.0, 0.0, 0
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total_loss += float(l.sum())
        total_acc += accuracy(y_hat, y)
        n += y.numel()
    net.eval()
    with torch.no_grad():
        correct = sum(accuracy(net(X), y) for X, y in test_iter)
    print(f'epoch {epoch + 1}: loss {total_loss / n:.4f}, train acc {total_acc / n:.4f}, '
          f'test acc {correct / 128:.4f}')
