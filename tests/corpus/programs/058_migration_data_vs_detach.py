"""PyTorch 0.4.0 Migration Guide -- "What about .data?": x.detach() reports in-place changes to
autograd, x.data does not.

Source: PyTorch blog, "PyTorch 0.4.0 Migration Guide" (section "What about .data?")
https://pytorch.org/blog/pytorch-0_4_0-migration-guide/

Written for the gradstep corpus, following the guide's sigmoid example.
Edits vs the source:
- The REPL session turned into a program; the RuntimeError of the detach() case is caught and
  its message printed (the guide shows the traceback).
"""
import torch

a = torch.tensor([1, 2, 3.], requires_grad=True)
out = a.sigmoid()
c = out.detach()
print(c.zero_())
print(out)  # modified by c.zero_() !!
try:
    out.sum().backward()  # Requires the original value of out, but that was overwritten by c.zero_()
except RuntimeError as e:
    print("RuntimeError:", e)

a = torch.tensor([1, 2, 3.], requires_grad=True)
out = a.sigmoid()
c = out.data
print(c.zero_())
print(out)  # out  was modified by c.zero_()
out.sum().backward()
print(a.grad)  # The result is very, very wrong because `out` changed!
