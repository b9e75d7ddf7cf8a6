"""PyTorch, what are the gradient arguments -- backward() of a non-scalar with a gradient
vector (the old 60-minute blitz example).

Source: Stack Overflow, "Pytorch, what are the gradient arguments"
https://stackoverflow.com/questions/43451125/pytorch-what-are-the-gradient-arguments

Written for the gradstep corpus, following the question's program (from the 0.x blitz).
Edits vs the source:
- Variable(torch.randn(3), requires_grad=True) written as torch.randn(3, requires_grad=True)
  after the 0.4 merge; torch.manual_seed(0) added.
"""
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
y.backward(gradients)

print(x.grad)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward(torch.ones(3))
print(x.grad)
