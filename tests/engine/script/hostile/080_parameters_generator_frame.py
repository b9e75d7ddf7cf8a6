# expect: runtime
import torch.nn as nn
net = nn.Linear(2, 2)
f = net.parameters().gi_frame
