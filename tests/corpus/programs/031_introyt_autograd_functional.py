"""Introduction to PyTorch on YouTube -- The Fundamentals of Autograd: the high-level API
(torch.autograd.functional.jacobian / vjp).

Source: "The Fundamentals of Autograd" (introyt/autogradyt_tutorial), section "The High-Level API"
https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- torch.manual_seed(0) added (the inputs are torch.rand; unseeded in the tutorial).
"""
import torch


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


torch.manual_seed(0)
inputs = (torch.rand(1), torch.rand(1))  # arguments for the function
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))

inputs = (torch.rand(3), torch.rand(3))  # arguments for the function
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.randn(3)
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))
