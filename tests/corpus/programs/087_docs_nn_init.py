"""torch.nn.init -- the documentation's examples (calculate_gain, uniform_, normal_,
constant_, ones_, zeros_, eye_, xavier_*, kaiming_*).

Source: PyTorch documentation, "torch.nn.init"
https://pytorch.org/docs/stable/nn.init.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- torch.manual_seed(0) added; each initialised tensor printed (torch.empty(3, 5) as in the docs).
"""
import torch
from torch import nn

print(nn.init.calculate_gain('leaky_relu', 0.2))  # leaky_relu with negative_slope=0.2
print(nn.init.calculate_gain('tanh'), nn.init.calculate_gain('relu'))

torch.manual_seed(0)
w = torch.empty(3, 5)
print(nn.init.uniform_(w))
w = torch.empty(3, 5)
print(nn.init.normal_(w))
w = torch.empty(3, 5)
print(nn.init.constant_(w, 0.3))
w = torch.empty(3, 5)
print(nn.init.ones_(w))
w = torch.empty(3, 5)
print(nn.init.zeros_(w))
w = torch.empty(3, 5)
print(nn.init.eye_(w))
w = torch.empty(3, 5)
print(nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain('relu')))
w = torch.empty(3, 5)
print(nn.init.xavier_normal_(w))
w = torch.empty(3, 5)
print(nn.init.kaiming_uniform_(w, mode='fan_in', nonlinearity='relu'))
w = torch.empty(3, 5)
print(nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'))
