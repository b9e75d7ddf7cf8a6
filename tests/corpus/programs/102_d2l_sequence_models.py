"""Dive into Deep Learning (classic edition), 8.1 Sequence Models -- an autoregressive MLP on a
noisy sine: lagged features, TensorDataset/DataLoader batches, Adam with MSELoss(reduction=
'none'), one-step-ahead against multi-step-ahead predictions fed back into the input.

Source: d2l.ai classic "Sequence Models" (PyTorch tab), with d2l.load_array and
d2l.evaluate_loss written inline
https://classic.d2l.ai/chapter_recurrent-neural-networks/sequence.html
License: MIT-0 (code of d2l-ai/d2l-en)

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- torch.manual_seed(0) added; the d2l.plot figures replaced by prints of a few predictions.
- evaluate_loss keeps its two sums in floats (the book's d2l.Accumulator(2)).
"""
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(0)

T = 1000  # Generate a total of 1000 points
time = torch.arange(1, T + 1, dtype=torch.float32)
x = torch.sin(0.01 * time) + torch.normal(0, 0.2, (T,))
print(x[:5])

tau = 4
features = torch.zeros((T - tau, tau))
for i in range(tau):
    features[:, i] = x[i: T - tau + i]
labels = x[tau:].reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    """Construct a PyTorch data iterator."""
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


batch_size, n_train = 16, 600
# Only the first `n_train` examples are used for training
train_iter = load_array((features[:n_train], labels[:n_train]), batch_size, is_train=True)


# Function for initializing the weights of the network
def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)


# A simple MLP
def get_net():
    net = nn.Sequential(nn.Linear(4, 10),
                        nn.ReLU(),
                        nn.Linear(10, 1))
    net.apply(init_weights)
    return net


# Note: `MSELoss` computes squared error without the 1/2 factor
loss = nn.MSELoss(reduction='none')


def evaluate_loss(net, data_iter, loss):
    """Evaluate the loss of a model on the given dataset."""
    total, count = 0.0, 0.0  # Sum of losses, no. of examples
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        total, count = total + float(l.sum()), count + l.numel()
    return total / count


def train(net, train_iter, loss, epochs, lr):
    trainer = torch.optim.Adam(net.parameters(), lr)
    for epoch in range(epochs):
        for X, y in train_iter:
            trainer.zero_grad()
            l = loss(net(X), y)
            l.sum().backward()
            trainer.step()
        print(f'epoch {epoch + 1}, '
              f'loss: {evaluate_loss(net, train_iter, loss):f}')


net = get_net()
train(net, train_iter, loss, 5, 0.01)

onestep_preds = net(features)
print(onestep_preds[n_train - 2: n_train + 2].reshape(-1))

multistep_preds = torch.zeros(T)
multistep_preds[: n_train + tau] = x[: n_train + tau]
for i in range(n_train + tau, T):
    multistep_preds[i] = net(multistep_preds[i - tau:i].reshape((1, -1)))
print(multistep_preds[n_train + tau: n_train + tau + 4], multistep_preds[-3:])

max_steps = 64

features = torch.zeros((T - tau - max_steps + 1, tau + max_steps))
# Column `i` (`i` < `tau`) are observations from `x` for time steps from
# `i + 1` to `i + T - tau - max_steps + 1`
for i in range(tau):
    features[:, i] = x[i: i + T - tau - max_steps + 1]

# Column `i` (`i` >= `tau`) are the (`i - tau + 1`)-step-ahead predictions for
# time steps from `i + 1` to `i + T - tau - max_steps + 1`
for i in range(tau, tau + max_steps):
    features[:, i] = net(features[:, i - tau:i]).reshape(-1)

steps = (1, 4, 16, 64)
for step in steps:
    print(step, features[:3, tau + step - 1])
