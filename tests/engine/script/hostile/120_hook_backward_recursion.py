# expect: limit
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
def hook(g):
    with torch.enable_grad():
        y.sum().backward(retain_graph=True)
y.register_hook(hook)
y.sum().backward(retain_graph=True)
