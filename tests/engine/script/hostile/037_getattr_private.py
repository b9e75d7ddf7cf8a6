# expect: forbidden
import torch
c = getattr(torch, '_C')
