# expect: forbidden
import torch
torch.autograd.grad_mode.state.enabled = False
