# expect: limit line 8
import torch
import torch.nn.functional as F


class Target:
    def dim(self):
        return self.dim() + 1


loss = F.margin_ranking_loss(torch.ones(3), torch.ones(3), Target())
