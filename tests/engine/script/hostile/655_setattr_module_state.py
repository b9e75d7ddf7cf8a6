# expect: forbidden line 4
import torch.nn as nn
m = nn.Linear(2, 2)
setattr(m, '_param' + 'eters', {})  # a computed name meets the rule obj._name does
