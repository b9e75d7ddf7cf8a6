"""Zeroing out gradients in PyTorch -- the recipe's CIFAR-10 CNN (two Conv2d + MaxPool2d, three
Linear layers), CrossEntropyLoss, SGD with momentum, and the training loop that calls
optimizer.zero_grad() before each forward/backward/step.

Source: PyTorch Recipes, recipes_source/recipes/zeroing_out_gradients.py
https://pytorch.org/tutorials/recipes/recipes/zeroing_out_gradients.html
License: BSD 3-Clause (pytorch/tutorials)

Edits vs the source: each is marked "gradstep edit" where it is made.
- torchvision is not importable (no downloads): CIFAR10 and its transforms become a
  TensorDataset of 24 random 3x32x32 images in [-1, 1] (the Normalize((0.5,)*3, (0.5,)*3) range)
  with random labels 0-9, seed 0; the unused test loader is left out.
- num_workers=2 becomes 0 (no worker processes).
- Statistics are printed every 3 mini-batches instead of every 2000 (an epoch is 6 batches).
- A final check added: after zero_grad() every parameter's .grad is None (set_to_none=True).
"""
import torch

import torch.nn as nn
import torch.nn.functional as F

import torch.optim as optim

# gradstep edit: torchvision imports removed (see the header)

torch.manual_seed(0)  # gradstep edit: a synthetic CIFAR-10 stand-in, seeded
images = torch.rand(24, 3, 32, 32) * 2 - 1
targets = torch.randint(0, 10, (24,))
trainset = torch.utils.data.TensorDataset(images, targets)
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4,
                                          shuffle=True, num_workers=0)

classes = ('plane', 'car', 'bird', 'cat',
           'deer', 'dog', 'frog', 'horse', 'ship', 'truck')


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(start_dim=1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):  # loop over the dataset multiple times

    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        # get the inputs; data is a list of [inputs, labels]
        inputs, labels = data

        # zero the parameter gradients
        optimizer.zero_grad()

        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        # print statistics
        running_loss += loss.item()
        if i % 3 == 2:    # gradstep edit: every 3 mini-batches (was 2000)
            print('[%d, %5d] loss: %.3f' %
                  (epoch + 1, i + 1, running_loss / 3))
            running_loss = 0.0

print('Finished Training')

# gradstep edit: what zero_grad() leaves behind
optimizer.zero_grad()
print([p.grad for p in net.parameters()])
print(net.fc3.bias)
