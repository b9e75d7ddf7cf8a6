"""torch.nn.CrossEntropyLoss -- the documentation's examples (class indices, class
probabilities), plus the NLLLoss(log_softmax) equivalence.

Source: PyTorch documentation, "CrossEntropyLoss"
https://pytorch.org/docs/stable/generated/torch.nn.CrossEntropyLoss.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) added; loss values and input gradients printed.
- The NLLLoss page's LogSoftmax + NLLLoss example added as the equivalence check
  (https://pytorch.org/docs/stable/generated/torch.nn.NLLLoss.html).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
# Example of target with class indices
loss = nn.CrossEntropyLoss()
input = torch.randn(3, 5, requires_grad=True)
target = torch.empty(3, dtype=torch.long).random_(5)
output = loss(input, target)
output.backward()
print(target, output)
print(input.grad)

# Example of target with class probabilities
input = torch.randn(3, 5, requires_grad=True)
target = torch.randn(3, 5).softmax(dim=1)
output = loss(input, target)
output.backward()
print(output)
print(input.grad)

m = nn.LogSoftmax(dim=1)
nll = nn.NLLLoss()
# input to NLLLoss is of size N x C = 3 x 5
input = torch.randn(3, 5, requires_grad=True)
# each element in target must have 0 <= value < C
target = torch.tensor([1, 0, 4])
output = nll(m(input), target)
output.backward()
print(output, loss(input, target))
print(output.grad_fn)
