"""yunjey/pytorch-tutorial, 01-basics/pytorch_basics -- autograd on scalars, one SGD step of a
Linear layer by hand and by optimizer, the numpy bridge, a custom Dataset skeleton with a
DataLoader, and fine-tuning only the top layer of a "pretrained" model.

Source: Yunjey Choi, pytorch-tutorial, tutorials/01-basics/pytorch_basics/main.py
https://github.com/yunjey/pytorch-tutorial/blob/master/tutorials/01-basics/pytorch_basics/main.py
License: MIT (yunjey/pytorch-tutorial)

Written for the gradstep corpus, following the file from top to bottom.
Edits vs the source:
- torch.manual_seed(0) added (the file is unseeded).
- 4. Input pipeline: CIFAR-10 (torchvision, a download) replaced by a TensorDataset of random
  images of the same shape; the loader's iteration and its loop kept.
- 5. The custom dataset's TODO bodies filled with a small in-memory list (the source returns
  nothing, and its DataLoader is never iterated).
- 6. Pretrained model: torchvision's resnet18 (a download) replaced by a small stand-in with
  the same .fc attribute and a 512-feature output; the input is 64x512 features.
- 7. Save and load (torch.save / torch.load, files) left out.
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)

# ================================================================== #
#                         Table of Contents                          #
# ================================================================== #

# 1. Basic autograd example 1               (Line 25 to 39)
# 2. Basic autograd example 2               (Line 46 to 83)
# 3. Loading data from numpy                (Line 90 to 97)
# 4. Input pipline                          (Line 104 to 129)
# 5. Input pipline for custom dataset       (Line 136 to 156)
# 6. Pretrained model                       (Line 163 to 176)
# 7. Save and load model                    (Line 183 to 189)


# ================================================================== #
#                     1. Basic autograd example 1                    #
# ================================================================== #

# Create tensors.
x = torch.tensor(1., requires_grad=True)
w = torch.tensor(2., requires_grad=True)
b = torch.tensor(3., requires_grad=True)

# Build a computational graph.
y = w * x + b    # y = 2 * x + 3

# Compute gradients.
y.backward()

# Print out the gradients.
print(x.grad)    # x.grad = 2
print(w.grad)    # w.grad = 1
print(b.grad)    # b.grad = 1


# ================================================================== #
#                    2. Basic autograd example 2                     #
# ================================================================== #

# Create tensors of shape (10, 3) and (10, 2).
x = torch.randn(10, 3)
y = torch.randn(10, 2)

# Build a fully connected layer.
linear = nn.Linear(3, 2)
print('w: ', linear.weight)
print('b: ', linear.bias)

# Build loss function and optimizer.
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)

# Forward pass.
pred = linear(x)

# Compute loss.
loss = criterion(pred, y)
print('loss: ', loss.item())

# Backward pass.
loss.backward()

# Print out the gradients.
print('dL/dw: ', linear.weight.grad)
print('dL/db: ', linear.bias.grad)

# 1-step gradient descent.
optimizer.step()

# You can also perform gradient descent at the low level.
# linear.weight.data.sub_(0.01 * linear.weight.grad.data)
# linear.bias.data.sub_(0.01 * linear.bias.grad.data)

# Print out the loss after 1-step gradient descent.
pred = linear(x)
loss = criterion(pred, y)
print('loss after 1 step optimization: ', loss.item())


# ================================================================== #
#                     3. Loading data from numpy                     #
# ================================================================== #

# Create a numpy array.
x = np.array([[1, 2], [3, 4]])

# Convert the numpy array to a torch tensor.
y = torch.from_numpy(x)

# Convert the torch tensor to a numpy array.
z = y.numpy()
print(y, z)


# ================================================================== #
#                         4. Input pipeline                          #
# ================================================================== #

# (in place of torchvision's CIFAR-10) 20 random 3x32x32 images with labels 0..9
images_all = torch.rand(20, 3, 32, 32)
labels_all = torch.randint(0, 10, (20,))
train_dataset = torch.utils.data.TensorDataset(images_all, labels_all)

# Fetch one data pair (read data from disk).
image, label = train_dataset[0]
print(image.size())
print(label)

# Data loader (this provides queues and threads in a very simple way).
train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                           batch_size=4,
                                           shuffle=True)

# When iteration starts, queue and thread start to load data from files.
data_iter = iter(train_loader)

# Mini-batch images and labels.
images, labels = next(data_iter)

# Actual usage of the data loader is as below.
for images, labels in train_loader:
    # Training code should be written here.
    pass
print(images.shape, labels)


# ================================================================== #
#                5. Input pipeline for custom dataset                 #
# ================================================================== #

# You should build your custom dataset as below.
class CustomDataset(torch.utils.data.Dataset):
    def __init__(self):
        # TODO
        # 1. Initialize file paths or a list of file names.
        self.items = [(torch.full((2,), float(i)), i % 2) for i in range(6)]

    def __getitem__(self, index):
        # TODO
        # 1. Read one data from file (e.g. using numpy.fromfile, PIL.Image.open).
        # 2. Preprocess the data (e.g. torchvision.Transform).
        # 3. Return a data pair (e.g. image and label).
        return self.items[index]

    def __len__(self):
        # You should change 0 to the total size of your dataset.
        return len(self.items)


# You can then use the prebuilt data loader.
custom_dataset = CustomDataset()
train_loader = torch.utils.data.DataLoader(dataset=custom_dataset,
                                           batch_size=4,
                                           shuffle=True)
for data, target in train_loader:
    print(data, target)


# ================================================================== #
#                        6. Pretrained model                         #
# ================================================================== #

class TinyResNet(nn.Module):
    """(in place of torchvision.models.resnet18(pretrained=True)) a body and a 1000-way fc."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(512, 512)
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


# Download and load the pretrained ResNet-18.
resnet = TinyResNet()

# If you want to finetune only the top layer of the model, set as below.
for param in resnet.parameters():
    param.requires_grad = False

# Replace the top layer for finetuning.
resnet.fc = nn.Linear(resnet.fc.in_features, 100)  # 100 is an example.

# Forward pass.
images = torch.randn(64, 512)
outputs = resnet(images)
print(outputs.size())     # (64, 100)
print([name for name, p in resnet.named_parameters() if p.requires_grad])
