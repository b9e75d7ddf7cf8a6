"""Hooks for inspecting gradients -- Tensor.register_hook (printing, doubling, and removing it),
retain_grad on intermediate tensors, Module.register_full_backward_hook and
register_full_backward_pre_hook, and zero_grad(set_to_none) before the next step.

Source: PyTorch documentation, "Module.register_full_backward_hook",
"Module.register_full_backward_pre_hook", "Tensor.register_hook", "Tensor.retain_grad"
https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook
https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html
https://pytorch.org/docs/stable/generated/torch.Tensor.retain_grad.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the pages' examples (the register_hook example
verbatim) and the hook signatures they document, in the way tutorials teach them.
Edits vs the source:
- The model (a two-layer nn.Sequential) and data (seed 0) are this program's.
"""
import torch
from torch import nn

torch.manual_seed(0)

# Tensor.register_hook, as documented
v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()  # removes the hook

# retain_grad: the gradient of a non-leaf is kept only when asked
x = torch.randn(3, requires_grad=True)
y = x * 3
z = y.tanh()
y.retain_grad()
z.sum().backward()
print(y.retains_grad, z.retains_grad, y.grad, z.grad)
print(torch.allclose(x.grad, 3 * y.grad))

# module backward hooks
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
seen = []


def backward_hook(module, grad_input, grad_output):
    seen.append((type(module).__name__, [None if g is None else tuple(g.shape) for g in grad_input],
                 [tuple(g.shape) for g in grad_output]))


def backward_pre_hook(module, grad_output):
    seen.append(("pre " + type(module).__name__, [tuple(g.shape) for g in grad_output]))
    return (grad_output[0] * 0.5,)  # halve the gradient flowing into the layer


handles = [model[0].register_full_backward_hook(backward_hook),
           model[2].register_full_backward_hook(backward_hook),
           model[2].register_full_backward_pre_hook(backward_pre_hook)]

inp = torch.randn(5, 4)
out = model(inp)
out.sum().backward()
for entry in seen:
    print(entry)
print(model[2].bias.grad)  # 5 rows of ones, halved by the pre-hook
grad_first = model[0].weight.grad.clone()

# zero_grad before the next backward; without the hooks the gradient is twice as large
for handle in handles:
    handle.remove()
model.zero_grad()
print(model[0].weight.grad is None)
model(inp).sum().backward()
print(torch.allclose(model[0].weight.grad, 2 * grad_first, atol=1e-6))
model.zero_grad(set_to_none=False)
print(model[0].weight.grad.abs().sum())
