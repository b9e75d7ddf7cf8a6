"""The examples of torch.nn's embedding and ranking losses -- CosineEmbeddingLoss,
MarginRankingLoss, TripletMarginLoss and GaussianNLLLoss (heteroscedastic and homoscedastic
var) -- each a loss module applied to random inputs and backward().

Source: PyTorch documentation, torch.nn loss functions (the Examples of each class)
https://pytorch.org/docs/stable/generated/torch.nn.CosineEmbeddingLoss.html
https://pytorch.org/docs/stable/generated/torch.nn.MarginRankingLoss.html
https://pytorch.org/docs/stable/generated/torch.nn.TripletMarginLoss.html
https://pytorch.org/docs/stable/generated/torch.nn.GaussianNLLLoss.html
License: BSD 3-Clause (pytorch/pytorch)

Edits vs the source: each is marked "gradstep edit" where it is made.
- `torch.manual_seed(0)` added and the outputs, grad_fns and grads printed (the doc examples
  print nothing).
- TripletMarginLoss's anchor/positive/negative are 10x16 instead of 100x128 (the printed grads
  stay short).
- The functional forms are called once each on the same tensors, with reduction='none', and a
  target of -1 for CosineEmbeddingLoss, to show the other branch.
"""
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)  # gradstep edit: seeded

loss = nn.CosineEmbeddingLoss()
input1 = torch.randn(3, 5, requires_grad=True)
input2 = torch.randn(3, 5, requires_grad=True)
target = torch.ones(3)
output = loss(input1, input2, target)
output.backward()
print(loss, output, input1.grad, sep="\n")  # gradstep edit: printed

# gradstep edit: a dissimilar pair (target -1) with a margin, unreduced
print(F.cosine_embedding_loss(input1, input2, torch.tensor([1., -1., -1.]), margin=0.2,
                              reduction='none'))

loss = nn.MarginRankingLoss()
input1 = torch.randn(3, requires_grad=True)
input2 = torch.randn(3, requires_grad=True)
target = torch.randn(3).sign()
output = loss(input1, input2, target)
output.backward()
print(target, output, input1.grad, input2.grad, sep="\n")  # gradstep edit: printed
print(F.margin_ranking_loss(input1, input2, target, margin=0.5, reduction='none'))  # gradstep edit

triplet_loss = nn.TripletMarginLoss(margin=1.0, p=2, eps=1e-7)
anchor = torch.randn(10, 16, requires_grad=True)  # gradstep edit: 10x16 (was 100x128)
positive = torch.randn(10, 16, requires_grad=True)
negative = torch.randn(10, 16, requires_grad=True)
output = triplet_loss(anchor, positive, negative)
output.backward()
print(triplet_loss, output, anchor.grad[0], sep="\n")  # gradstep edit: printed
print(F.pairwise_distance(anchor, positive)[:4])  # gradstep edit: the distances it compares
print(F.triplet_margin_loss(anchor, positive, negative, swap=True, reduction='none'))

loss = nn.GaussianNLLLoss()
input = torch.randn(5, 2, requires_grad=True)
target = torch.randn(5, 2)
var = torch.ones(5, 2, requires_grad=True)  # heteroscedastic
output = loss(input, target, var)
output.backward()
print(output, input.grad, var.grad, sep="\n")  # gradstep edit: printed

loss = nn.GaussianNLLLoss()
input = torch.randn(5, 2, requires_grad=True)
target = torch.randn(5, 2)
var = torch.ones(5, 1, requires_grad=True)  # homoscedastic
output = loss(input, target, var)
output.backward()
print(output, var.grad, sep="\n")  # gradstep edit: printed
print(F.gaussian_nll_loss(input, target, var, full=True, reduction='sum'))  # gradstep edit
