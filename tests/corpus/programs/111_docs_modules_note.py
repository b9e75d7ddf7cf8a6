"""PyTorch's Modules note -- MyLinear with nn.Parameter, Sequential and custom composition,
named_children / named_modules, a training loop, a module whose forward depends on
self.training, RunningMean's buffer in the state_dict, and forward pre-hooks, forward hooks and
a full backward hook that replaces grad_inputs.

Source: PyTorch documentation, notes/modules.rst ("Modules")
https://pytorch.org/docs/stable/notes/modules.html
License: BSD-3-Clause (pytorch/pytorch)

Written for the gradstep corpus, following the note's code blocks in order.
Edits vs the source:
- torch.manual_seed(0) at the start; the note's bare expressions (m(sample_input), ...) printed.
- DynamicNet (nn.ModuleDict) and StatefulModule (nn.ParameterList, nn.ParameterDict) left out,
  and with them the note's .to(device='cuda') and skip_init lines: the engine has none of
  these yet. Module initialization's Linear(5, 3, dtype=torch.half) left out too.
- The training loop runs 200 iterations (the source: 10000).
- torch.save / torch.load of the state dicts (files) replaced by load_state_dict of the
  state_dict itself.
"""
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


m = MyLinear(4, 3)
sample_input = torch.randn(4)
print(m(sample_input))

for parameter in m.named_parameters():
    print(parameter)

net = nn.Sequential(
    MyLinear(4, 3),
    nn.ReLU(),
    MyLinear(3, 1)
)

sample_input = torch.randn(4)
print(net(sample_input))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = F.relu(x)
        x = self.l1(x)
        return x


net = Net()
for child in net.named_children():
    print(child)


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


big_net = BigNet()
for module in big_net.named_modules():
    print(module)


# Define a function to initialize Linear weights.
# Note that no_grad() is used here to avoid tracking this computation in the autograd graph.
@torch.no_grad()
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        m.bias.fill_(0.0)


# Apply the function recursively on the module and its submodules.
print(nn.Sequential(nn.Linear(2, 2), nn.Tanh()).apply(init_weights))

# Create the network (from previous section) and optimizer
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)

# Run a sample training loop that "teaches" the network
# to output the constant zero function
for _ in range(200):
    input = torch.randn(4)
    output = net(input)
    loss = torch.abs(output)
    net.zero_grad()
    loss.backward()
    optimizer.step()

# After training, switch the module to eval mode to do inference, compute performance metrics, etc.
# (see discussion below for a description of training and evaluation modes)
net.eval()
print(net.l1.weight)


class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.
        else:
            return x


m = ModalModule()
x = torch.randn(4)

print('training mode output: {}'.format(m(x)))

m.eval()
print('evaluation mode output: {}'.format(m(x)))

# (the note saves net.state_dict() to net.pt and loads it into a new Net)
new_net = Net()
print(new_net.load_state_dict(net.state_dict()))


class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer('mean', torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


m = RunningMean(4)
for _ in range(10):
    input = torch.randn(4)
    m(input)

print(m.state_dict())

m_loaded = RunningMean(4)
m_loaded.load_state_dict(m.state_dict())
assert(torch.all(m.mean == m_loaded.mean))

for buffer in m.named_buffers():
    print(buffer)

torch.manual_seed(1)


def forward_pre_hook(m, inputs):
    # Allows for examination and modification of the input before the forward pass.
    # Note that inputs are always wrapped in a tuple.
    input = inputs[0]
    return input + 1.


def forward_hook(m, inputs, output):
    # Allows for examination of inputs / outputs and modification of the outputs
    # after the forward pass. Note that inputs are always wrapped in a tuple while outputs
    # are passed as-is.

    # Residual computation a la ResNet.
    return output + inputs[0]


def backward_hook(m, grad_inputs, grad_outputs):
    # Allows for examination of grad_inputs / grad_outputs and modification of
    # grad_inputs used in the rest of the backwards pass. Note that grad_inputs and
    # grad_outputs are always wrapped in tuples.
    new_grad_inputs = [torch.ones_like(gi) * 42. for gi in grad_inputs]
    return new_grad_inputs


# Create sample module & input.
m = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)

# ==== Demonstrate forward hooks. ====
# Run input through module before and after adding hooks.
print('output with no forward hooks: {}'.format(m(x)))

# Note that the modified input results in a different output.
forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
print('output with forward pre hook: {}'.format(m(x)))

# Note the modified output.
forward_hook_handle = m.register_forward_hook(forward_hook)
print('output with both forward hooks: {}'.format(m(x)))

# Remove hooks; note that the output here matches the output before adding hooks.
forward_pre_hook_handle.remove()
forward_hook_handle.remove()
print('output after removing forward hooks: {}'.format(m(x)))

# ==== Demonstrate backward hooks. ====
m(x).sum().backward()
print('x.grad with no backwards hook: {}'.format(x.grad))

# Clear gradients before running backward pass again.
m.zero_grad()
x.grad.zero_()

m.register_full_backward_hook(backward_hook)
m(x).sum().backward()
print('x.grad with backwards hook: {}'.format(x.grad))
