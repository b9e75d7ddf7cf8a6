# expect: forbidden
import torch
torch.save(torch.ones(2), 'pwned.pt')
