"""yunjey/pytorch-tutorial, 01-basics/linear_regression: nn.Linear(1, 1) fitted to the 15-point
toy data set with nn.MSELoss and torch.optim.SGD for 60 epochs, the inputs from numpy arrays by
torch.from_numpy, the predictions back to numpy with .detach().numpy().

Source: yunjey/pytorch-tutorial, tutorials/01-basics/linear_regression/main.py
https://github.com/yunjey/pytorch-tutorial/blob/master/tutorials/01-basics/linear_regression/main.py
License: MIT (yunjey/pytorch-tutorial)

Edits vs the source: each is marked "gradstep edit" where it is made.
- `torch.manual_seed(0)` added (nn.Linear's initial weights are random).
- matplotlib removed: the plotted predictions are printed instead, with the learned weight and
  bias.
- torch.save of the checkpoint removed (scripts write no files); model.state_dict() printed.
"""
import torch
import torch.nn as nn
import numpy as np
# gradstep edit: `import matplotlib.pyplot as plt` removed (see the header)

torch.manual_seed(0)  # gradstep edit: seeded

# Hyper-parameters
input_size = 1
output_size = 1
num_epochs = 60
learning_rate = 0.001

# Toy dataset
x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168],
                    [9.779], [6.182], [7.59], [2.167], [7.042],
                    [10.791], [5.313], [7.997], [3.1]], dtype=np.float32)

y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573],
                    [3.366], [2.596], [2.53], [1.221], [2.827],
                    [3.465], [1.65], [2.904], [1.3]], dtype=np.float32)

# Linear regression model
model = nn.Linear(input_size, output_size)

# Loss and optimizer
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

# Convert numpy arrays to torch tensors
inputs = torch.from_numpy(x_train)
targets = torch.from_numpy(y_train)

# Train the model
for epoch in range(num_epochs):

    # Forward pass
    outputs = model(inputs)
    loss = criterion(outputs, targets)

    # Backward and optimize
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    if (epoch+1) % 5 == 0:
        print ('Epoch [{}/{}], Loss: {:.4f}'.format(epoch+1, num_epochs, loss.item()))

# Plot the graph
predicted = model(inputs).detach().numpy()
# gradstep edit: printed instead of plotted
print(predicted.ravel(), predicted.dtype, type(predicted).__name__)
print(model.weight.item(), model.bias.item())

# Save the model checkpoint
print(model.state_dict())  # gradstep edit: was torch.save(model.state_dict(), 'model.ckpt')
