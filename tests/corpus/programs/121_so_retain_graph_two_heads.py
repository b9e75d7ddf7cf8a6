"""What does the parameter retain_graph mean in the Variable's backward() method? -- the
accepted answer's example: a network whose convolutional trunk is shared by two heads ("cat?"
and "car?"), trained by backpropagating through one branch and then the other. Without
retain_graph=True the second backward() fails, because the first freed the trunk's saved
tensors; with it the trunk's grads are the sum of both branches' (the same as one backward
of the summed loss).

Source: Stack Overflow, "What does the parameter retain_graph mean in the Variable's
backward() method?"
https://stackoverflow.com/questions/46774641/what-does-the-parameter-retain-graph-mean-in-the-variables-backward-method

Written for the gradstep corpus, following the answer's program.
Edits vs the source:
- The answer's ASCII graph (Conv - Conv - Conv, then FC - FC - FC for each question) is written
  as a module: three Conv2d(3->4->4->4, 3x3) + ReLU shared, two heads of three Linear layers with
  a sigmoid output, BCELoss against random labels; 4 random 3x12x12 images, seed 0.
- The three cases the answer describes are run and printed: the summed loss, the two branches
  without retain_graph (the error), and with retain_graph=True on the first backward.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)


class TwoQuestions(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(3, 4, 3), nn.ReLU(),
            nn.Conv2d(4, 4, 3), nn.ReLU(),
            nn.Conv2d(4, 4, 3), nn.ReLU(),
            nn.Flatten())

        def head():
            return nn.Sequential(nn.Linear(4 * 6 * 6, 16), nn.ReLU(), nn.Linear(16, 8),
                                 nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())

        self.cat = head()
        self.car = head()

    def forward(self, x):
        features = self.trunk(x)
        return self.cat(features), self.car(features)


net = TwoQuestions()
images = torch.randn(4, 3, 12, 12)
is_cat = torch.randint(0, 2, (4, 1)).float()
is_car = torch.randint(0, 2, (4, 1)).float()
criterion = nn.BCELoss()
first_conv = net.trunk[0].weight

# 1. the simple way: sum the losses and backpropagate once
cat, car = net(images)
loss = criterion(cat, is_cat) + criterion(car, is_car)
loss.backward()
summed = first_conv.grad.clone()
print("summed loss", loss.item(), loss.grad_fn)
print("trunk grad (summed)", summed[0, 0])

# 2. one branch after the other, without retain_graph: the trunk's graph is gone
net.zero_grad()
cat, car = net(images)
loss_cat = criterion(cat, is_cat)
loss_car = criterion(car, is_car)
loss_cat.backward()
print("after the cat branch", first_conv.grad[0, 0, 0])
try:
    loss_car.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
print("car head grad after the error", net.car[0].weight.grad)

# 3. retain the graph on the first backward: the second one runs
net.zero_grad()
cat, car = net(images)
loss_cat = criterion(cat, is_cat)
loss_car = criterion(car, is_car)
loss_cat.backward(retain_graph=True)
cat_only = first_conv.grad.clone()
loss_car.backward()
print("cat branch alone", cat_only[0, 0, 0])
print("both branches", first_conv.grad[0, 0])
print("same as the summed loss:", torch.allclose(first_conv.grad, summed))
print("car head grad", net.car[4].weight.grad)
