"""torch.autograd.functional.hessian and jacobian -- the documentation's examples.

Source: PyTorch documentation, "torch.autograd.functional.hessian"
https://pytorch.org/docs/stable/generated/torch.autograd.functional.hessian.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) replaces the unseeded torch.rand inputs; REPL lines printed.
"""
import torch


def pow_reducer(x):
    return x.pow(3).sum()


torch.manual_seed(0)
inputs = torch.rand(2, 2)
print(torch.autograd.functional.hessian(pow_reducer, inputs))


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
print(torch.autograd.functional.jacobian(exp_reducer, inputs))
