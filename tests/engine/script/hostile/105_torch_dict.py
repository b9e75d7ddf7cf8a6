# expect: forbidden
import torch
d = torch.__dict__
