"""Deep Learning with PyTorch: A 60 Minute Blitz -- A Gentle Introduction to torch.autograd.

Source: "A Gentle Introduction to torch.autograd" (blitz/autograd_tutorial)
https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- torchvision's resnet18(weights=ResNet18_Weights.DEFAULT) replaced by a small stand-in:
  nn.Sequential(nn.Linear(3 * 8 * 8, 512), nn.ReLU()) followed by a module attribute `fc`
  (nn.Linear(512, 1000)), so that `model.fc` can be replaced as in the tutorial; the data is
  torch.rand(1, 3 * 8 * 8) instead of torch.rand(1, 3, 64, 64) (no convolutions, no download).
- torch.manual_seed(0) added (the tutorial is unseeded).
- The printed checks are the tutorial's: `9*a**2 == a.grad`, `-2*b == b.grad`, and the
  requires_grad flags of the DAG-exclusion example.
"""
import torch
from torch import nn, optim


class ResNetStandIn(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3 * 8 * 8, 512), nn.ReLU())
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        return self.fc(self.body(x))


torch.manual_seed(0)
model = ResNetStandIn()
data = torch.rand(1, 3 * 8 * 8)
labels = torch.rand(1, 1000)

prediction = model(data)  # forward pass

loss = (prediction - labels).sum()
loss.backward()  # backward pass

optim_ = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
optim_.step()  # gradient descent

# Differentiation in Autograd
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)

Q = 3 * a ** 3 - b ** 2

external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)

# check if collected gradients are correct
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)

# Exclusion from the DAG
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

model = ResNetStandIn()

# Freeze all the parameters in the network
for param in model.parameters():
    param.requires_grad = False

model.fc = nn.Linear(512, 10)

# Optimize only the classifier
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
print([name for name, p in model.named_parameters() if p.requires_grad])
