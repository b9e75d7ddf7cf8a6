"""How gradients are accumulated in real -- gradient accumulation over accumulation_steps
mini-batches, with loss / accumulation_steps and a step every N batches.

Source: PyTorch Forums, "How gradients are accumulated in real"
https://discuss.pytorch.org/t/how-gradients-are-accumulated-in-real/115462

Written for the gradstep corpus, following the thread's loop.
Edits vs the source:
- `training_set`, `model`, `loss_function` made concrete: 8 synthetic batches of
  torch.randn(4, 5) with targets torch.randn(4, 1), nn.Linear(5, 1), MSELoss, SGD(lr=0.1),
  seed 0.
- A check that the accumulated gradient of 4 quarter-losses equals the full batch's gradient,
  as the thread's answer explains.
"""
import torch
from torch import nn

torch.manual_seed(0)
training_set = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(8)]
model = nn.Linear(5, 1)
loss_function = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
accumulation_steps = 4

model.zero_grad()
for i, (inputs, labels) in enumerate(training_set):
    predictions = model(inputs)                     # Forward pass
    loss = loss_function(predictions, labels)       # Compute loss function
    loss = loss / accumulation_steps                # Normalize our loss (if averaged)
    loss.backward()                                 # Backward pass
    if (i + 1) % accumulation_steps == 0:           # Wait for several backward steps
        print(i, model.weight.grad)
        optimizer.step()                            # Now we can do an optimizer step
        model.zero_grad()                           # Reset gradients tensors

print(model.weight, model.bias)

# the accumulated gradient equals the gradient of the concatenated batch
model.zero_grad()
for inputs, labels in training_set[:4]:
    (loss_function(model(inputs), labels) / 4).backward()
accumulated = model.weight.grad.clone()
model.zero_grad()
X = torch.cat([x for x, _ in training_set[:4]])
Y = torch.cat([y for _, y in training_set[:4]])
loss_function(model(X), Y).backward()
print(torch.allclose(accumulated, model.weight.grad, atol=1e-6))
