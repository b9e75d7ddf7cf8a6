"""timm's ModelEmaV2 -- an exponential moving average of a model's weights and buffers: a
deepcopy of the model in eval mode, updated after each optimizer step by copy_ of
decay * ema + (1 - decay) * model over state_dict().values() under no_grad; evaluated beside
the trained model.

Source: Ross Wightman, pytorch-image-models (timm), timm/utils/model_ema.py, class ModelEmaV2
https://github.com/huggingface/pytorch-image-models/blob/main/timm/utils/model_ema.py
License: Apache-2.0 (huggingface/pytorch-image-models)

Written for the gradstep corpus: the class as timm defines it, and a small training loop using
it the way timm's train.py does (model_ema.update(model) after each optimizer.step()).
Edits vs the source:
- Only ModelEmaV2 (the file also has ModelEma, deprecated, and ModelEmaV3); its docstring
  shortened.
- The training loop, model and data (random regression, a Linear-BatchNorm1d-ReLU-Linear net,
  SGD) written for the corpus, after timm's train.py usage; decay 0.9998 -> 0.9.
"""
from copy import deepcopy

import torch
import torch.nn as nn


class ModelEmaV2(nn.Module):
    """ Model Exponential Moving Average V2

    Keep a moving average of everything in the model state_dict (parameters and buffers).
    V2 of this module is simpler, it does not match params/buffers based on name but simply
    iterates in order. It works with torchscript (JIT of full model).
    """
    def __init__(self, model, decay=0.9999, device=None):
        super(ModelEmaV2, self).__init__()
        # make a copy of the model for accumulating moving average of weights
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay
        self.device = device  # perform ema on different device from model if set
        if self.device is not None:
            self.module.to(device=device)

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if self.device is not None:
                    model_v = model_v.to(device=self.device)
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


torch.manual_seed(0)
x = torch.randn(64, 4)
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]) + 0.1 * torch.randn(64, 1)

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
model_ema = ModelEmaV2(model, decay=0.9)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()

print(model_ema)
print([k for k in model_ema.state_dict()])

for epoch in range(5):
    model.train()
    for i in range(0, 64, 16):
        optimizer.zero_grad()
        loss = loss_fn(model(x[i:i + 16]), y[i:i + 16])
        loss.backward()
        optimizer.step()
        model_ema.update(model)
    model.eval()
    with torch.no_grad():
        print(epoch, round(loss.item(), 4), round(loss_fn(model(x), y).item(), 4),
              round(loss_fn(model_ema(x), y).item(), 4))

print(model_ema.module[1].running_mean, model_ema.module[1].num_batches_tracked)
print(model_ema.module[0].weight.requires_grad, model_ema.module.training)
model_ema.set(model)
print(all(torch.equal(a, b) for a, b in zip(model_ema.state_dict().values(),
                                            model.state_dict().values())))
