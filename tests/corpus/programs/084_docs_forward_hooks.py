"""nn.Module.register_forward_hook / register_forward_pre_hook -- printing activations' shapes
as they pass through a model, then removing the hooks.

Source: PyTorch documentation, "Module.register_forward_hook"
https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.register_forward_hook

Written for the gradstep corpus, following the common use shown in the forums (a hook that
records each layer's output).
Edits vs the source:
- The model (a small nn.Sequential) and data (seed 0) are this program's.
"""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook


def print_pre(module, args):
    print("pre", type(module).__name__, args[0].shape)


handles = []
for name, layer in model.named_children():
    handles.append(layer.register_forward_hook(get_activation(name)))
    handles.append(layer.register_forward_pre_hook(print_pre))

out = model(torch.randn(3, 4))
for name, act in activations.items():
    print(name, act.shape, act.requires_grad)
print(torch.equal(activations['2'], out.detach()))

for h in handles:
    h.remove()
activations.clear()
model(torch.randn(3, 4))
print(len(activations))
