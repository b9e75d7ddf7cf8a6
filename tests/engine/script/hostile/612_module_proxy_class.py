# expect: forbidden line 3
import torch
p = torch.__class__('torch')
