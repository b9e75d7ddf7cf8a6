"""torch.inference_mode -- the documentation's examples (context manager and decorator).

Source: PyTorch documentation, "inference_mode"
https://pytorch.org/docs/stable/generated/torch.inference_mode.html

Written for the gradstep corpus, following the documentation's examples.
Edits vs the source:
- The REPL sessions turned into a program printing what the REPL shows.
"""
import torch

x = torch.ones(1, 2, 3, requires_grad=True)
with torch.inference_mode():
    y = x * x
print(y.requires_grad)


@torch.inference_mode()
def func(x):
    return x * x


out = func(x)
print(out.requires_grad)
print(torch.is_inference_mode_enabled())
