"""torch.autograd.functional's products -- vjp, jvp, vhp and hvp, and hessian and jacobian of
functions of several inputs: the documentation's examples, with create_graph and strict.

Source: PyTorch documentation, "torch.autograd.functional.vjp", "...jvp", "...vhp", "...hvp",
"...hessian", "...jacobian"
https://pytorch.org/docs/stable/generated/torch.autograd.functional.vjp.html
https://pytorch.org/docs/stable/generated/torch.autograd.functional.jvp.html
https://pytorch.org/docs/stable/generated/torch.autograd.functional.vhp.html
https://pytorch.org/docs/stable/generated/torch.autograd.functional.hvp.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the pages' examples in order.
Edits vs the source:
- torch.manual_seed(0) replaces the unseeded torch.rand inputs; REPL lines printed.
- The strict=True refusal at the end is this program's (the pages describe it in words).
"""
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(4, 4)
v = torch.ones(4)
print(vjp(exp_reducer, inputs, v))
out, vjp_out = vjp(exp_reducer, inputs, v, create_graph=True)
print(out.grad_fn is not None, vjp_out.grad_fn is not None)


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.rand(2), torch.rand(2))
v = torch.ones(2)
print(vjp(adder, inputs, v))

inputs = torch.rand(4, 4)
v = torch.ones(4, 4)
print(jvp(exp_reducer, inputs, v))

inputs = (torch.rand(2), torch.rand(2))
v = (torch.ones(2), torch.ones(2))
print(jvp(adder, inputs, v))


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
v = torch.ones(2, 2)
print(vhp(pow_reducer, inputs, v))
print(vhp(pow_reducer, inputs, v, create_graph=True))
print(hvp(pow_reducer, inputs, v))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.rand(2), torch.rand(2))
v = (torch.zeros(2), torch.ones(2))
print(vhp(pow_adder_reducer, inputs, v))
print(hvp(pow_adder_reducer, inputs, v))
print(hessian(pow_adder_reducer, inputs))


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
print(jacobian(exp_adder, inputs))
print(jacobian(exp_reducer, torch.rand(2, 2), create_graph=True))


# the output does not depend on the input: zeros, or an error with strict=True
def constant(x):
    return torch.ones(3)


print(jacobian(constant, torch.rand(2)))
try:
    jacobian(constant, torch.rand(2), strict=True)
except RuntimeError as e:
    print("RuntimeError:", e)
