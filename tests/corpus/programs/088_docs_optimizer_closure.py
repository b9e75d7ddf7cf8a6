"""torch.optim -- optimizer.step(closure), and the Adagrad / AdamW / RMSprop(momentum)
optimizers on the same problem.

Source: PyTorch documentation, "torch.optim" (Taking an optimization step: optimizer.step(closure))
https://pytorch.org/docs/stable/optim.html#optimizer-step-closure

Written for the gradstep corpus, following the documentation's closure pattern.
Edits vs the source:
- The docs' LBFGS is replaced by first-order optimizers (the closure pattern is the same);
  `dataset`, `model`, `loss_fn` made concrete (8 samples, nn.Linear(3, 1), MSELoss), seed 0.
"""
import torch
from torch import nn, optim

torch.manual_seed(0)
dataset = [(torch.randn(3), torch.randn(1)) for _ in range(8)]
loss_fn = nn.MSELoss()
start = nn.Linear(3, 1).state_dict()

for make in (lambda p: optim.Adagrad(p, lr=0.1),
             lambda p: optim.AdamW(p, lr=0.05, weight_decay=0.1),
             lambda p: optim.RMSprop(p, lr=0.01, momentum=0.9),
             lambda p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True)):
    model = nn.Linear(3, 1)
    model.load_state_dict(start)
    optimizer = make(model.parameters())
    for epoch in range(3):
        for input, target in dataset:
            def closure():
                optimizer.zero_grad()
                output = model(input)
                loss = loss_fn(output, target)
                loss.backward()
                return loss
            loss = optimizer.step(closure)
    print(type(optimizer).__name__, loss.item(), model.weight.data, model.bias.data)
