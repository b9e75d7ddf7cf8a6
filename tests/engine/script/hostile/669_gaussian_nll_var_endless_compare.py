# expect: limit line 9
import torch
import torch.nn.functional as F


class Var:
    def __lt__(self, other):
        while True:
            pass


loss = F.gaussian_nll_loss(torch.zeros(2, 3), torch.ones(2, 3), Var())
