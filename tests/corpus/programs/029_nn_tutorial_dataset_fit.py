"""What is torch.nn really? -- TensorDataset, DataLoader, validation, loss_batch / fit.

Source: "What is torch.nn really?" (nn_tutorial), sections "Refactor using Dataset",
"Refactor using DataLoader", "Add validation", "Create fit() and get_data()"
https://pytorch.org/tutorials/beginner/nn_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- MNIST replaced by synthetic tensors of the same row shape: x_train torch.rand(1000, 784) * 0.2,
  x_valid torch.rand(200, 784) * 0.2, labels torch.randint(0, 10, ...), seed 0.
- numpy's np.sum/np.multiply of the tutorial's loss_batch bookkeeping kept.
- The synthetic pixels are scaled by 0.2 (mean 0.1, near MNIST's 0.13): with uniform [0, 1]
  images the tutorial's lr = 0.5 diverges and the run becomes chaotic.
"""
import math
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import TensorDataset
from torch.utils.data import DataLoader

torch.manual_seed(0)
x_train, y_train = torch.rand(1000, 784) * 0.2, torch.randint(0, 10, (1000,))
x_valid, y_valid = torch.rand(200, 784) * 0.2, torch.randint(0, 10, (200,))

bs = 64
lr = 0.5
epochs = 2
loss_func = F.cross_entropy

train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

        print(epoch, val_loss)


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
