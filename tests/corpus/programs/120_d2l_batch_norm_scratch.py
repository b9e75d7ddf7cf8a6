"""Dive into Deep Learning, 8.5 Batch Normalization -- batch_norm written from scratch (batch
statistics while grad is enabled, moving averages in prediction mode, read through
torch.is_grad_enabled()), a BatchNorm module keeping its moving mean and variance as plain
tensors, and LeNet with it, trained with minibatch SGD; then gamma and beta of the first
BatchNorm, and the concise version with nn.LazyBatchNorm2d/1d.

Source: d2l-ai/d2l-en, chapter_convolutional-modern/batch-norm.md (PyTorch tab)
https://d2l.ai/chapter_convolutional-modern/batch-norm.html
License: CC BY-SA 4.0 (text), MIT-0 (code) (d2l-ai/d2l-en)

Edits vs the source: each is marked "gradstep edit" where it is made.
- `from d2l import torch as d2l` removed: d2l.Classifier/d2l.Trainer (the training loop) and
  d2l.FashionMNIST are replaced by a plain loop (SGD lr=0.1, cross entropy, as the Trainer
  does) over a TensorDataset of 64 random 1x28x28 images with labels 0-9 (FashionMNIST's
  shape), batch size 16 (was 128), 2 epochs (was 10), seed 0.
- The per-epoch mean training loss and the evaluation-mode logits of two images are printed
  (the book plots its curves).
"""
import torch
from torch import nn
# gradstep edit: `from d2l import torch as d2l` removed (see the header)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    # Use is_grad_enabled to determine whether we are in training mode
    if not torch.is_grad_enabled():
        # In prediction mode, use mean and variance obtained by moving average
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            # When using a fully connected layer, calculate the mean and
            # variance on the feature dimension
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            # When using a two-dimensional convolutional layer, calculate the
            # mean and variance on the channel dimension (axis=1). Here we
            # need to maintain the shape of X, so that the broadcasting
            # operation can be carried out later
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        # In training mode, the current mean and variance are used
        X_hat = (X - mean) / torch.sqrt(var + eps)
        # Update the mean and variance using moving average
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta  # Scale and shift
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    # num_features: the number of outputs for a fully connected layer or the
    # number of output channels for a convolutional layer. num_dims: 2 for a
    # fully connected layer and 4 for a convolutional layer
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        # The scale parameter and the shift parameter (model parameters) are
        # initialized to 1 and 0, respectively
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        # The variables that are not model parameters are initialized to 0 and
        # 1
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        # If X is not on the main memory, copy moving_mean and moving_var to
        # the device where X is located
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        # Save the updated moving_mean and moving_var
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


class BNLeNetScratch(nn.Module):  # gradstep edit: nn.Module (was d2l.Classifier)
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr  # gradstep edit: was self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), BatchNorm(6, num_dims=4),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), BatchNorm(16, num_dims=4),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120),
            BatchNorm(120, num_dims=2), nn.Sigmoid(), nn.LazyLinear(84),
            BatchNorm(84, num_dims=2), nn.Sigmoid(),
            nn.LazyLinear(num_classes))

    def forward(self, X):  # gradstep edit: d2l.Module's forward
        return self.net(X)


# gradstep edit: d2l.FashionMNIST and d2l.Trainer replaced (see the header)
torch.manual_seed(0)
images = torch.rand(64, 1, 28, 28)
labels = torch.randint(0, 10, (64,))
train_iter = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(images, labels), batch_size=16, shuffle=True)


def fit(model, max_epochs=2):
    model(images[:2])  # d2l's apply_init: a dummy forward materialises the lazy layers
    optimizer = torch.optim.SGD(model.parameters(), lr=model.lr)
    for epoch in range(max_epochs):
        model.train()
        losses = []
        for X, y in train_iter:
            loss = nn.functional.cross_entropy(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(f'epoch {epoch + 1}, train loss {sum(losses) / len(losses):.4f}')
    model.eval()
    with torch.no_grad():
        print(model(images[:2]))


model = BNLeNetScratch(lr=0.1)
fit(model)

print(model.net[1].gamma.reshape((-1,)), model.net[1].beta.reshape((-1,)))
print(model.net[1].moving_mean.reshape((-1,)))  # gradstep edit: the moving statistics


class BNLeNet(nn.Module):  # gradstep edit: nn.Module (was d2l.Classifier)
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr  # gradstep edit: was self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(84), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(num_classes))

    def forward(self, X):  # gradstep edit: d2l.Module's forward
        return self.net(X)


model = BNLeNet(lr=0.1)
fit(model)
print(model.net[1].weight, model.net[1].running_mean)
